"""One way to break a valid argument object by exactly one rule, before any value is drawn.

A catalogue of breakages is listed for a given valid object (``keyword_breakages``,
``reference_breakages``); each knows where the offending value will be and which rule it breaks,
and ``apply`` draws the offending value into a copy of the object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engram_conformance.spec.engram_memory import Spec
from engram_conformance.spec.pointers import Location

from ..sizes import Budget, Draw
from .locations import has, schema_at, set_at, strings
from .walk import draw_distinct, draw_value

#: Bytes that the values drawn for one breakage (new items, fresh ids) may spend together.
FILLER_BYTES = 64 * 1024

#: Breaks a copy of the object in place; returns the offending location when only the drawn
#: value decides it (an extra property's name), else None.
Apply = Callable[[Draw, dict[str, Any]], Location | None]


@dataclass(frozen=True)
class Breakage:
    """``apply`` breaks ``rule`` at ``location`` of a copy of the object, in place.

    ``location`` is that of the offending value, or of the field a missing value should be at.
    """

    location: Location
    rule: str
    description: str
    apply: Apply
    clock_dependent: bool = False


@dataclass(frozen=True)
class Context:
    """What a catalogue reads: the spec, and the inlined input schema of the tool."""

    spec: Spec
    schema: dict[str, Any]

    def rule_for(self, subschema: dict[str, Any], keyword: str) -> str | None:
        """The rule a failing ``keyword`` of ``subschema`` breaks, as ``validate_arguments`` says.

        The subschema's own ``x-rules`` first, then the contract's ``keyword_rules``; None when
        neither names one (such a keyword is not broken: no label could be given).
        """
        named = subschema.get("x-rules", {}).get(keyword)
        return named or self.spec.contract["keyword_rules"].get(keyword)


def draw_fresh(draw: Draw, schema: dict[str, Any], document: Any) -> Any:
    """A value of ``schema`` equal to no string of ``document``: an id nothing refers to."""
    return draw_distinct(draw, schema, Budget(FILLER_BYTES), strings(document))


def ensure_parents(draw: Draw, document: Any, schema: dict[str, Any], location: Location) -> None:
    """Draw the absent objects above ``location`` (with their required fields)."""
    for depth in range(1, len(location)):
        parent = location[:depth]
        if not has(document, parent):
            value = draw_value(draw, schema_at(schema, parent), Budget(FILLER_BYTES))
            set_at(document, parent, value)
