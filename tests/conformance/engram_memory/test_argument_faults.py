"""The argument faults the checks put into a valid call break one thing each (issue 29): the
contract refuses the call with the fault, and accepts it once the one place the fault breaks is
put back from the valid call (the spec's minimal example of the tool). Whatever else the fault
changes stays, so that the acceptance also shows it harmless: a retention that expired adds a
``derivative_rule`` beside its ``expires_at``, say.

The faults: capture's of the SCHEMA and XREF checks (``schema``: a digest not of the digest
form, an attestation over its bound, an evidence citation that resolves nowhere, a retention
that expired, which RET-004 and IDEM-014 also send), a trust class in the payload (HOST-017),
and on every tool each argument that only the host binds (HOST-014), that selects maintenance
(HOST-013) or that passes for an approval (GATE-009).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks import schema
from engram_conformance.conformance.engram_memory.checks.argument_examples import base
from engram_conformance.conformance.engram_memory.checks.binding import (
    MAINTENANCE_ARGUMENTS,
    host_owned,
)
from engram_conformance.conformance.engram_memory.checks.gate import CONFIRMATION_LIKE
from engram_conformance.conformance.engram_memory.host import Identity
from engram_conformance.spec.engram_memory import instant, load, validate_arguments

SPEC = load()
NOW_MS = 1_780_000_000_000
CAPTURE = "engram_memory_capture"
ABSENT = object()

Fault = Callable[[dict[str, Any]], None]


def _trust(arguments: dict[str, Any]) -> None:
    arguments["payload"]["trust"] = {"class": "signed"}


#: capture's faults -> the one place (a JSON Pointer) each breaks
CAPTURE_FAULTS: dict[Fault, str] = {
    schema.bad_content_digest: "/payload/citations/0/content_digest",
    schema.bad_evidence_digest: "/evidence/evidence_digest",
    schema.long_attestation: "/evidence/attestation",
    schema.dangling_evidence_citation: "/evidence/citation_ids",
    schema.expired: "/payload/retention/expires_at",
    _trust: "/payload/trust",
}
EXTRAS = {
    "HOST-013": MAINTENANCE_ARGUMENTS,
    "HOST-014": host_owned(Identity("tenant-2", "workspace-2", "principal-2"), instant(NOW_MS)),
    "GATE-009": CONFIRMATION_LIKE,
}


def _accepted(tool: str, arguments: dict[str, Any]) -> bool:
    return validate_arguments(tool, arguments, clock=lambda: NOW_MS).ok


def _parts(pointer: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in pointer.split("/")[1:]]


def _at(document: Any, parts: list[Any]) -> Any:
    for part in parts:
        try:
            document = document[part]
        except (KeyError, IndexError):
            return ABSENT
    return document


def _put_back(case: dict[str, Any], valid: dict[str, Any], pointer: str) -> dict[str, Any]:
    """``case`` with what ``valid`` holds at ``pointer`` (removed where it holds nothing)."""
    restored, parts = copy.deepcopy(case), _parts(pointer)
    parent, value = _at(restored, parts[:-1]), _at(valid, parts)
    if value is ABSENT:
        del parent[parts[-1]]
    else:
        parent[parts[-1]] = copy.deepcopy(value)
    return restored


def _breaks_one_place(tool: str, case: dict[str, Any], pointer: str) -> None:
    valid = base(SPEC, tool).arguments
    assert _accepted(tool, valid), "the valid call the case is made from is accepted"
    assert not _accepted(tool, case), "the case is refused"
    assert _accepted(tool, _put_back(case, valid, pointer)), f"with {pointer} put back"


@pytest.mark.parametrize(
    ("fault", "pointer"), CAPTURE_FAULTS.items(), ids=[f.__name__ for f in CAPTURE_FAULTS]
)
def test_each_capture_fault_breaks_its_place(fault: Fault, pointer: str) -> None:
    case = copy.deepcopy(base(SPEC, CAPTURE).arguments)
    fault(case)
    _breaks_one_place(CAPTURE, case, pointer)


EXTRA_CASES = [
    (rule, tool, name, value)
    for rule, extras in EXTRAS.items()
    for tool in SPEC.tools
    for name, value in extras.items()
]


@pytest.mark.parametrize(
    ("rule", "tool", "name", "value"),
    EXTRA_CASES,
    ids=[f"{rule}:{tool}:{name}" for rule, tool, name, _ in EXTRA_CASES],
)
def test_each_extra_argument_breaks_only_the_closed_schema(
    rule: str, tool: str, name: str, value: Any
) -> None:
    case = {**base(SPEC, tool).arguments, name: value}
    _breaks_one_place(tool, case, f"/{name}")
