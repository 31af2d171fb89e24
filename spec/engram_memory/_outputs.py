"""What a server answers, judged rule by rule: each constraint of the envelope and output schemas
names in ``x-rules`` the rule it enforces.

The seed gives the output fields and the values it enumerates; the types and forms it does not
give (digests, cursors, times, ranks) are this kit's decisions. So one schema holds constraints
of several levels, and a breach must be charged to the rule of the constraint that failed, not
to one rule of the whole value: a server whose ``valid_as_of`` is an Instant string breaks a
``profile`` rule (``warn``), not a ``must`` one. ``spec lint`` requires a rule for every
constraint (``unruled_constraints``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..pointers import to_pointer
from ._spec import Spec

#: Keywords that assert something of a value (the others apply subschemas or annotate).
ASSERTIONS = frozenset(
    {
        "type",
        "required",
        "enum",
        "const",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "format",
        "x-minBytes",
        "x-maxBytes",
        "x-nfc",
        "x-instant",
        "x-sortedUnique",
    }
)
#: Keywords holding one subschema, or a list or a map of them. ``if`` is left out: its keywords
#: are a condition, never a breach.
_ONE = ("items", "then", "else", "not", "contains", "additionalProperties", "propertyNames")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "$defs")
#: Rule families about the arguments a caller sends: no answer can break them.
ARGUMENT_FAMILIES = frozenset({"SCHEMA", "XREF"})
#: What a breach is charged to if a constraint names no rule (``spec lint`` prevents it).
UNRULED = "unruled"


@dataclass(frozen=True)
class OutputBreach:
    """One constraint an answer breaks: the rule it enforces, where in the answer, and why."""

    rule: str
    pointer: str
    detail: str

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.detail}"


def output_breaches(spec: Spec, schema_id: str, value: Any) -> list[OutputBreach]:
    """Every constraint of the schema ``schema_id`` that ``value`` breaks, with its rule."""
    return [
        OutputBreach(
            error.schema.get("x-rules", {}).get(error.validator, UNRULED),
            to_pointer(error.absolute_path),
            error.message,
        )
        for error in spec.validator(schema_id).iter_errors(value)
    ]


def schema_rules(spec: Spec, schema_id: str) -> tuple[str, ...]:
    """The rules that the constraints of ``schema_id`` (references followed) enforce."""
    return tuple(sorted({rule for _, _, rule in _constraints(_inlined(spec, schema_id)) if rule}))


def unruled_constraints(spec: Spec, schema_id: str) -> Iterator[tuple[str, str | None]]:
    """(JSON Pointer in the inlined schema, rule) of every constraint whose ``x-rules`` entry is
    missing (rule None) or names an argument rule (SCHEMA or XREF), which an answer cannot
    break."""
    for location, keyword, rule in _constraints(_inlined(spec, schema_id)):
        if rule is None or rule.split("-")[0] in ARGUMENT_FAMILIES:
            yield to_pointer((*location, keyword)), rule


def _inlined(spec: Spec, schema_id: str) -> Any:
    return spec.validator(schema_id).schema


def _constraints(node: Any, location: tuple = ()) -> Iterator[tuple[tuple, str, str | None]]:
    if not isinstance(node, dict):
        return
    rules = node.get("x-rules", {})
    for keyword in sorted(ASSERTIONS & set(node)):
        yield location, keyword, rules.get(keyword)
    if node.get("additionalProperties") is False:
        yield location, "additionalProperties", rules.get("additionalProperties")
    for keyword in _ONE:
        if isinstance(node.get(keyword), dict):
            yield from _constraints(node[keyword], (*location, keyword))
    for keyword in _LISTS:
        for index, item in enumerate(node.get(keyword, ())):
            yield from _constraints(item, (*location, keyword, index))
    for keyword in _MAPS:
        for name, item in node.get(keyword, {}).items():
            yield from _constraints(item, (*location, keyword, name))
