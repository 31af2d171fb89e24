"""What search and get reveal, and to whom (SCOPE, SEARCH-001, LIFE-019, RET-006)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from engram_conformance.spec.engram_memory import Spec

from .service_fixtures import (
    DAY_MS,
    OTHER_PRINCIPAL,
    SCOPE_OTHER_TENANT,
    SCOPE_OTHER_WORKSPACE,
    UNKNOWN_RECORD_ID,
    Binding,
    Harness,
    assert_error,
    value_of,
    without_audit,
)

SAME_WORKSPACE_OTHER_TENANT = Binding(tenant="tenant-b", workspace="workspace-a")


def _unknown(harness: Harness) -> str:
    return UNKNOWN_RECORD_ID


def _other_tenant(harness: Harness) -> str:
    return harness.accepted(SCOPE_OTHER_TENANT, text="ineligible words")


def _other_workspace(harness: Harness) -> str:
    return harness.accepted(SCOPE_OTHER_WORKSPACE, text="ineligible words")


def _forgotten(harness: Harness) -> str:
    record_id = harness.accepted(text="ineligible words")
    harness.forget(record_id)
    return record_id


def _expired(harness: Harness) -> str:
    retention = {"derivative_rule": "make-ineligible", "expires_at": harness.clock.instant(500)}
    record_id = harness.accepted(text="ineligible words", retention=retention)
    harness.clock.advance(500)
    return record_id


def _not_yet_current(harness: Harness) -> str:
    return harness.accepted(text="ineligible words", t=harness.clock() + 1)


def _valid_time_ended(harness: Harness) -> str:
    return harness.accepted(
        text="ineligible words", t=harness.clock() - DAY_MS, t_end=harness.clock() - 1
    )


INELIGIBLE: dict[str, Callable[[Harness], str]] = {
    "unknown": _unknown,
    "other-tenant": _other_tenant,
    "other-workspace": _other_workspace,
    "forgotten": _forgotten,
    "expired": _expired,
    "not-yet-current": _not_yet_current,
    "valid-time-ended": _valid_time_ended,
}


@pytest.mark.parametrize("case", INELIGIBLE)
def test_scope_004_get_answers_one_not_found_for_every_ineligible_id(
    harness: Harness, spec: Spec, case: str
) -> None:
    """SCOPE-003, SCOPE-004, SEARCH-001, LIFE-019, RET-006: the same answer as an unknown id,
    and search does not return it either."""
    record_id = INELIGIBLE[case](harness)
    envelope = harness.get(record_id)
    assert_error(spec, envelope, "NOT_FOUND")
    assert without_audit(envelope) == without_audit(harness.get(UNKNOWN_RECORD_ID))
    assert record_id not in harness.found_ids("ineligible words")


def _foreign_calls(harness: Harness) -> dict[str, Callable[[str], dict[str, Any]]]:
    return {
        "admission": lambda target: harness.admit(target),
        "withdraw": lambda target: harness.withdraw(target),
        "forget": lambda target: harness.forget(target),
    }


@pytest.mark.parametrize(
    "scope", [SCOPE_OTHER_TENANT, SCOPE_OTHER_WORKSPACE, SAME_WORKSPACE_OTHER_TENANT]
)
def test_scope_005_mutations_of_another_scope_are_not_found(
    harness: Harness, spec: Spec, scope: Binding
) -> None:
    """SCOPE-005, SCOPE-006: answered as an unknown id; the target keeps its state."""
    candidate_id = harness.pending(scope, text="foreign pending")
    record_id = harness.accepted(scope, text="foreign record")
    unknown_candidate = without_audit(harness.admit("cand_unknown"))
    calls = _foreign_calls(harness)
    with harness.writes_nothing():
        for name, target, unknown in (
            ("admission", candidate_id, unknown_candidate),
            ("withdraw", candidate_id, without_audit(harness.withdraw("cand_unknown"))),
            ("forget", record_id, without_audit(harness.forget(UNKNOWN_RECORD_ID))),
        ):
            envelope = calls[name](target)
            assert_error(spec, envelope, "NOT_FOUND")
            assert without_audit(envelope) == unknown
    assert harness.candidate_state(candidate_id, scope) == "pending"
    assert value_of(harness.get(record_id, scope))["record"]["record_id"] == record_id


@pytest.mark.parametrize(
    "scope", [SCOPE_OTHER_TENANT, SCOPE_OTHER_WORKSPACE, SAME_WORKSPACE_OTHER_TENANT]
)
def test_scope_001_search_in_another_scope_sees_nothing(harness: Harness, scope: Binding) -> None:
    """SCOPE-001, SCOPE-002, SCOPE-007: a scope never used before is empty."""
    record_id = harness.accepted(text="isolated words")
    assert harness.found_ids("isolated words") == [record_id]
    empty = value_of(harness.search("isolated words", scope))
    assert empty["records"] == []
    assert empty["rank_receipt"]["candidate_count"] == 0


def test_scope_008_memory_is_shared_among_principals_of_a_scope(harness: Harness) -> None:
    """SCOPE-008: another principal reads, admits, withdraws and forgets in the same scope."""
    record_id = harness.accepted(text="shared words")
    assert harness.found_ids("shared words", OTHER_PRINCIPAL) == [record_id]
    assert value_of(harness.get(record_id, OTHER_PRINCIPAL))["record"]["record_id"] == record_id
    candidate_id = harness.pending()
    outcome = value_of(harness.admit(candidate_id, binding=OTHER_PRINCIPAL))["outcome"]
    assert outcome["status"] == "accepted"
    assert (
        value_of(harness.withdraw(harness.pending(), binding=OTHER_PRINCIPAL))["replayed"] is False
    )
    assert value_of(harness.forget(record_id, binding=OTHER_PRINCIPAL))["replayed"] is False


def test_life_019_valid_time_start_decides_currency(harness: Harness, spec: Spec) -> None:
    """LIFE-019: visible from t on (t <= now), in epoch milliseconds."""
    start = harness.clock() + 1_000
    record_id = harness.accepted(text="future words", t=start)
    harness.clock.advance(999)
    assert_error(spec, harness.get(record_id), "NOT_FOUND")
    assert harness.found_ids("future words") == []
    harness.clock.advance(1)
    assert value_of(harness.get(record_id))["record"]["record_id"] == record_id
    assert harness.found_ids("future words") == [record_id]


def test_life_019_valid_time_end_decides_currency(harness: Harness, spec: Spec) -> None:
    """LIFE-019: visible while now <= t_end; gone one millisecond later."""
    end = harness.clock() + 1_000
    record_id = harness.accepted(text="bounded words", t_end=end)
    harness.clock.advance(1_000)
    assert value_of(harness.get(record_id))["record"]["record_id"] == record_id
    assert harness.found_ids("bounded words") == [record_id]
    harness.clock.advance(1)
    assert_error(spec, harness.get(record_id), "NOT_FOUND")
    assert harness.found_ids("bounded words") == []


def test_search_016_search_and_get_are_read_only_and_repeatable(harness: Harness) -> None:
    """SEARCH-016: no write, and the same records twice (get's receipts name each call's audit
    id, so only its record is compared)."""
    record_id = harness.accepted(text="repeatable words")
    harness.accepted(text="more repeatable words")
    with harness.writes_nothing():
        first_search = value_of(harness.search("repeatable"))
        second_search = value_of(harness.search("repeatable"))
        first_get = value_of(harness.get(record_id))
        second_get = value_of(harness.get(record_id))
    assert first_search == second_search
    assert first_get["record"] == second_get["record"]
    assert first_get["redaction_receipt_digest"] == second_get["redaction_receipt_digest"]
