"""GATE-006's confirmation time cases each break one thing (issue 29): a time in another form
means the very instant of the Instant it replaces, the reference refuses that form, and with the
Instant put back the approval holds (TTL, execution window and skew all kept)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks.confirmation_cases import time_forms
from engram_conformance.reference_impl.engram_memory.context import Confirmation
from engram_conformance.reference_impl.engram_memory.gate import holds
from engram_conformance.spec.engram_memory import instant, instant_ms, load, operation_digest

SPEC = load()
VALIDATOR = SPEC.binding_validator()
TOOL = "engram_memory_withdraw"
ARGUMENTS = {"candidate_id": "cand_a", "idempotency_key": "key-0123456789abcdef"}
GIVEN_MS = 1_780_000_000_000  # a whole second
FORMS = time_forms(GIVEN_MS)
APPROVAL = {
    "ref": "approval-1",
    "capability": TOOL,
    "target": ARGUMENTS[SPEC.tools[TOOL].target],
    "operation_digest": operation_digest(TOOL, ARGUMENTS),
    "approved_at": instant(GIVEN_MS),
    "expires_at": instant(GIVEN_MS + 60_000),
}


def _errors(confirmation: dict[str, Any]) -> list[str]:
    """The binding schema's complaints about a context carrying ``confirmation``."""
    claims = {
        **{name: f"{name}-1" for name in ("tenant", "workspace", "principal", "audit_id")},
        **{name: f"{name}:x" for name in ("agent_id", "session", "purpose_ref")},
        "tool": TOOL,
        "iat": GIVEN_MS // 1000,
        "exp": GIVEN_MS // 1000 + 120,
        "confirmation": confirmation,
    }
    return [error.message for error in VALIDATOR.iter_errors(claims)]


def _instant_of(value: Any) -> int:
    """What instant a lenient reader of the form would take ``value`` for, in epoch ms."""
    if isinstance(value, list):
        [value] = value
    if isinstance(value, int):
        return value if value > 10**11 else value * 1000
    return int(datetime.fromisoformat(value).astimezone(UTC).timestamp() * 1000)


def test_the_forms_are_the_issues_list() -> None:
    kinds = {case.split(" ", 1)[1] for case in FORMS}
    assert kinds == {
        "in epoch milliseconds",
        "in epoch seconds",
        "without milliseconds",
        "with the offset +00:00",
        "in the zone +02:00",
        "not a string (the Instant in an array)",
    }
    assert {name for name, _ in FORMS.values()} == {"approved_at", "expires_at"}


@pytest.mark.parametrize("case", list(FORMS))
def test_each_form_breaks_only_its_form(case: str) -> None:
    name, value = FORMS[case]
    assert _instant_of(value) == instant_ms(APPROVAL[name])  # the same instant, another form
    assert _errors({**APPROVAL, name: value}) != []  # the reference refuses the form
    restored = {**APPROVAL, name: instant(_instant_of(value))}
    assert restored == APPROVAL and _errors(restored) == []
    confirmation = Confirmation(
        *(restored[field] for field in ("ref", "capability", "target", "operation_digest")),
        instant_ms(restored["approved_at"]),
        instant_ms(restored["expires_at"]),
    )
    assert holds(SPEC, TOOL, ARGUMENTS, confirmation, now_ms=GIVEN_MS + 1_000)
