"""The confirmation gate (GATE-002 to GATE-013): when a host approval holds for a call."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.context import Confirmation
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.spec.engram_memory import Spec, operation_digest

from .service_fixtures import (
    ADMIT,
    CAPTURE,
    FORGET,
    WITHDRAW,
    Harness,
    assert_error,
    capture_arguments,
    open_harness,
    value_of,
)


def _withdraw_arguments(harness: Harness) -> dict[str, Any]:
    return {"candidate_id": harness.pending(), "idempotency_key": harness.key(), "reason_ref": "r"}


def _forget_arguments(harness: Harness) -> dict[str, Any]:
    return {"record_id": harness.accepted(), "idempotency_key": harness.key(), "reason_ref": "r"}


TARGETS: dict[str, Callable[[Harness], dict[str, Any]]] = {
    WITHDRAW: _withdraw_arguments,
    FORGET: _forget_arguments,
}

#: (rule, how the confirmation is broken, given the call's tool and arguments and now)
BROKEN: list[tuple[str, Callable[[Confirmation, str, dict[str, Any], int], Confirmation]]] = [
    ("GATE-003 other capability", lambda c, tool, a, now: replace(c, capability=ADMIT)),
    ("GATE-003 swapped capability", lambda c, tool, a, now: replace(
        c, capability=FORGET if tool == WITHDRAW else WITHDRAW)),
    ("GATE-003 other target", lambda c, tool, a, now: replace(c, target=c.target + "x")),
    ("GATE-003 digest of other reason_ref", lambda c, tool, a, now: replace(
        c, operation_digest=operation_digest(tool, {**a, "reason_ref": "other"}))),
    ("GATE-003 digest of other key", lambda c, tool, a, now: replace(
        c, operation_digest=operation_digest(tool, {**a, "idempotency_key": "k" * 20}))),
    ("GATE-003 digest of other tool", lambda c, tool, a, now: replace(
        c, operation_digest=operation_digest(ADMIT, a))),
    ("GATE-004 ttl over 300 s", lambda c, tool, a, now: replace(
        c, expires_at_ms=c.approved_at_ms + 300_001)),
    ("GATE-004 expired", lambda c, tool, a, now: replace(
        c, approved_at_ms=now - 10_000, expires_at_ms=now)),
    ("GATE-005 executed 30.001 s after approval", lambda c, tool, a, now: replace(
        c, approved_at_ms=now - 30_001, expires_at_ms=now + 60_000)),
    ("GATE-006 approved over 5 s in the future", lambda c, tool, a, now: replace(
        c, approved_at_ms=now + 5_001, expires_at_ms=now + 60_000)),
]  # fmt: skip

#: Boundaries that still hold.
HOLDING: list[tuple[str, Callable[[Confirmation, str, dict[str, Any], int], Confirmation]]] = [
    ("GATE-004 ttl exactly 300 s", lambda c, tool, a, now: replace(
        c, approved_at_ms=now, expires_at_ms=now + 300_000)),
    ("GATE-004 expires 1 ms from now", lambda c, tool, a, now: replace(
        c, approved_at_ms=now - 1_000, expires_at_ms=now + 1)),
    ("GATE-005 executed exactly 30 s after approval", lambda c, tool, a, now: replace(
        c, approved_at_ms=now - 30_000, expires_at_ms=now + 1_000)),
    ("GATE-006 approved exactly 5 s in the future", lambda c, tool, a, now: replace(
        c, approved_at_ms=now + 5_000, expires_at_ms=now + 60_000)),
]  # fmt: skip


@pytest.mark.parametrize("tool", [WITHDRAW, FORGET])
@pytest.mark.parametrize(("case", "breaks"), BROKEN, ids=[case for case, _ in BROKEN])
def test_gate_003_to_006_broken_confirmation_is_gate_failed(
    harness: Harness, spec: Spec, tool: str, case: str, breaks: Callable[..., Confirmation]
) -> None:
    """GATE-003..006, GATE-012: gate_failed, nothing written, the key stays unreserved."""
    arguments = TARGETS[tool](harness)
    now = harness.clock()
    broken = breaks(harness.confirmation(tool, arguments), tool, arguments, now)
    with harness.writes_nothing():
        assert_error(spec, harness.call(tool, arguments, confirm=broken), "gate_failed")
    answer = value_of(harness.call(tool, arguments))
    assert answer["replayed"] is False


@pytest.mark.parametrize("tool", [WITHDRAW, FORGET])
@pytest.mark.parametrize(("case", "bends"), HOLDING, ids=[case for case, _ in HOLDING])
def test_gate_002_confirmation_at_its_bounds_holds(
    harness: Harness, tool: str, case: str, bends: Callable[..., Confirmation]
) -> None:
    """GATE-002, GATE-004..006: a confirmation at the edge of each bound still holds."""
    arguments = TARGETS[tool](harness)
    confirmation = bends(harness.confirmation(tool, arguments), tool, arguments, harness.clock())
    answer = value_of(harness.call(tool, arguments, confirm=confirmation))
    assert answer["replayed"] is False
    assert answer["receipt"]["to_state"] == ("withdrawn" if tool == WITHDRAW else "tombstoned")


def test_gate_012_gate_failed_leaves_the_target_as_it_was(harness: Harness, spec: Spec) -> None:
    """GATE-012: after gate_failed the candidate is still pending and the record still current."""
    withdraw = _withdraw_arguments(harness)
    forget = _forget_arguments(harness)
    for tool, arguments in ((WITHDRAW, withdraw), (FORGET, forget)):
        late = harness.confirmation(tool, arguments, approved_at_ms=harness.clock() - 40_000)
        assert_error(spec, harness.call(tool, arguments, confirm=late), "gate_failed")
    assert harness.candidate_state(withdraw["candidate_id"]) == "pending"
    assert value_of(harness.get(forget["record_id"]))["record"]["record_id"] == forget["record_id"]


def test_gate_service_without_confirmation_is_gate_failed(harness: Harness, spec: Spec) -> None:
    """The service's own answer when no confirmation reaches it (the binding answers -32603
    before that, GATE-001): it never proceeds."""
    arguments = _withdraw_arguments(harness)
    context = harness.context(WITHDRAW)
    with harness.writes_nothing():
        envelope = harness.service.call(WITHDRAW, arguments, context)
    assert_error(spec, envelope, "gate_failed")


def test_gate_010_replay_needs_a_confirmation_that_holds(harness: Harness, spec: Spec) -> None:
    """GATE-010: the first confirmation replays within 30 s; after that it is gate_failed."""
    arguments = _withdraw_arguments(harness)
    confirmation = harness.confirmation(WITHDRAW, arguments)
    first = value_of(harness.call(WITHDRAW, arguments, confirm=confirmation))
    harness.clock.advance(seconds=30)
    replay = value_of(harness.call(WITHDRAW, arguments, confirm=confirmation))
    assert replay == {**first, "replayed": True}
    harness.clock.advance(1)
    assert_error(spec, harness.call(WITHDRAW, arguments, confirm=confirmation), "gate_failed")
    assert value_of(harness.call(WITHDRAW, arguments)) == {**first, "replayed": True}


def test_gate_008_capture_and_admission_need_no_confirmation_by_default(harness: Harness) -> None:
    """GATE-008: without confirmation_required, capture and admission proceed unconfirmed."""
    context = harness.context(CAPTURE)
    assert context.confirmation is None
    captured = harness.service.call(CAPTURE, capture_arguments(harness.key()), context)
    candidate_id = value_of(captured)["candidate_id"]
    arguments = {"candidate_id": candidate_id, "idempotency_key": harness.key()}
    admitted = harness.service.call(ADMIT, arguments, harness.context(ADMIT))
    assert value_of(admitted)["outcome"]["status"] == "accepted"


@pytest.fixture
def confirming(tmp_path: Path) -> Iterator[Harness]:
    policy = HostPolicy(confirmation_required=frozenset({CAPTURE, ADMIT}))
    with open_harness(tmp_path / "confirming", policy) as harness:
        yield harness


def test_gate_007_capture_without_confirmation_when_required(
    confirming: Harness, spec: Spec
) -> None:
    """GATE-007: capture marked by host policy, unconfirmed: gate_failed, nothing written."""
    arguments = capture_arguments("confirm-key-0000001")
    with confirming.writes_nothing():
        assert_error(spec, confirming.capture(arguments), "gate_failed")
    assert value_of(confirming.capture(arguments, confirm=True))["status"] == "committed_pending"


def test_gate_013_capture_confirmation_targets_the_idempotency_key(
    confirming: Harness, spec: Spec
) -> None:
    """GATE-013: a capture confirmation names the idempotency_key; any other target fails."""
    arguments = capture_arguments("confirm-key-0000002")
    holding = confirming.confirmation(CAPTURE, arguments)
    assert holding.target == "confirm-key-0000002"
    for target in ("confirm-key-0000003", arguments["payload"]["primary_component_id"], ""):
        with confirming.writes_nothing():
            envelope = confirming.capture(arguments, confirm=replace(holding, target=target))
        assert_error(spec, envelope, "gate_failed")
    other_content = confirming.confirmation(CAPTURE, capture_arguments("confirm-key-0000002", "x"))
    assert_error(spec, confirming.capture(arguments, confirm=other_content), "gate_failed")
    assert value_of(confirming.capture(arguments, confirm=holding))["status"] == "committed_pending"


def test_gate_013_admission_confirmation_targets_the_candidate(
    confirming: Harness, spec: Spec
) -> None:
    """GATE-007, GATE-013: admission marked by host policy needs a confirmation of its candidate."""
    captured = confirming.capture(capture_arguments("confirm-key-0000004"), confirm=True)
    candidate_id = value_of(captured)["candidate_id"]
    arguments = {"candidate_id": candidate_id, "idempotency_key": confirming.key()}
    with confirming.writes_nothing():
        assert_error(spec, confirming.call(ADMIT, arguments), "gate_failed")
        other = confirming.confirmation(ADMIT, arguments, target=candidate_id + "x")
        assert_error(spec, confirming.call(ADMIT, arguments, confirm=other), "gate_failed")
    answer = value_of(confirming.call(ADMIT, arguments, confirm=True))
    assert answer["outcome"]["status"] == "accepted"
    assert confirming.candidate_state(candidate_id) == "accepted"


def test_gate_007_policy_does_not_confirm_search_or_get(confirming: Harness) -> None:
    """Only the tools the host lists need confirmation: search still answers unconfirmed."""
    assert confirming.search("anything")["ok"] is True
