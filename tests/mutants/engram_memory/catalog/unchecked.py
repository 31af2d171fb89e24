"""Servers that leave one argument rule out of their checks (issue 29): for each argument rule
no other mutant breaks, the reference whose validation lets through what that rule alone refuses
(a schema that forgot one keyword, a bound never compared), so that the call goes on to its tool.
Each is caught by that rule: its labelled examples, which break it alone, are then not refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory import service
from engram_conformance.spec.engram_memory import ArgumentVerdict, validate_arguments

from ...caught import Caught

#: the argument rules that had no mutant: a refusal of the labelled examples of each
UNCHECKED = (
    "SCHEMA-003",
    "SCHEMA-004",
    "SCHEMA-008",
    "SCHEMA-009",
    "SCHEMA-010",
    "SCHEMA-013",
    "SCHEMA-014",
    "SCHEMA-016",
    "SCHEMA-020",
    "SCHEMA-022",
    "SCHEMA-023",
    "SCHEMA-025",
    "SCHEMA-026",
    "SCHEMA-028",
    "SCHEMA-030",
    "SCHEMA-034",
    "SCHEMA-036",
    "XREF-009",
)


def leaving_out(rule: str) -> Callable[[pytest.MonkeyPatch], dict[str, Any]]:
    """The planting of a reference whose argument checks leave ``rule`` out."""

    def plant(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
        def validated(tool: str, arguments: Any, **options: Any) -> ArgumentVerdict:
            verdict = validate_arguments(tool, arguments, **options)
            return ArgumentVerdict() if verdict.rule == rule else verdict

        monkeypatch.setattr(service, "validate_arguments", validated)
        return {}

    plant.__doc__ = f"Leaves {rule} out of its argument checks: what it alone refuses goes on."
    return plant


#: what leaving a rule out breaks besides: without digest forms checked, a capture whose digest
#: is not of the form and whose retention expired answers the clock's INVALID_SCHEMA (the order
#: of SCHEMA-011), and XREF-010's capture refused for its digest form is not refused at all
ALSO = {"SCHEMA-010": Caught(("SCHEMA-010", "SCHEMA-011"), undecided=("XREF-010",))}
MUTANTS: list[tuple[Callable[[pytest.MonkeyPatch], dict[str, Any]], Caught]] = [
    (leaving_out(rule), ALSO.get(rule, Caught((rule,)))) for rule in UNCHECKED
]
