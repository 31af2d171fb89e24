"""Capture against the clock and host policy: expires_at, ceiling, retain, reconciliation consent
(RET-002 to RET-004, LIFE-021)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.policy import (
    DEFAULT_RETENTION_CEILING_S,
    HostPolicy,
)
from engram_conformance.spec.engram_memory import Spec

from .service_fixtures import Harness, assert_error, capture_arguments, open_harness, value_of


def _expiring(harness: Harness, offset_ms: int, rule: str = "make-ineligible") -> dict[str, Any]:
    retention = {"derivative_rule": rule, "expires_at": harness.clock.instant(offset_ms)}
    return capture_arguments(harness.key(), retention=retention)


@pytest.mark.parametrize("offset_ms", [0, -1, -86_400_000])
def test_ret_004_expires_at_not_after_now(harness: Harness, spec: Spec, offset_ms: int) -> None:
    """RET-004: expires_at at or before capture time: INVALID_SCHEMA, nothing written."""
    with harness.writes_nothing():
        assert_error(spec, harness.capture(_expiring(harness, offset_ms)), "INVALID_SCHEMA")


def test_ret_004_expires_at_one_millisecond_ahead_is_accepted(harness: Harness) -> None:
    """RET-004: strictly after now (by 1 ms) is enough."""
    assert value_of(harness.capture(_expiring(harness, 1)))["status"] == "committed_pending"


def test_ret_003_ceiling_is_inclusive(harness: Harness, spec: Spec) -> None:
    """RET-003: expires_at at now + ceiling is accepted; 1 ms beyond is UNAUTHORIZED."""
    ceiling_ms = DEFAULT_RETENTION_CEILING_S * 1000
    with harness.writes_nothing():
        assert_error(spec, harness.capture(_expiring(harness, ceiling_ms + 1)), "UNAUTHORIZED")
    assert (
        value_of(harness.capture(_expiring(harness, ceiling_ms)))["status"] == "committed_pending"
    )


def test_ret_003_ceiling_comes_from_the_host_policy(tmp_path: Path, spec: Spec) -> None:
    """RET-003: a host with a one-hour ceiling refuses two hours."""
    with open_harness(tmp_path / "state", HostPolicy(retention_ceiling_s=3600)) as harness:
        assert_error(spec, harness.capture(_expiring(harness, 7_200_000)), "UNAUTHORIZED")
        value = value_of(harness.capture(_expiring(harness, 3_600_000)))
        assert value["status"] == "committed_pending"


@pytest.mark.parametrize("with_expiry", [False, True])
def test_ret_002_retain_needs_host_permission(
    harness: Harness, spec: Spec, with_expiry: bool
) -> None:
    """RET-002: retain without host permission: UNAUTHORIZED, nothing written."""
    if with_expiry:
        arguments = _expiring(harness, 60_000, "retain")
    else:
        arguments = capture_arguments(harness.key(), retention={"derivative_rule": "retain"})
    with harness.writes_nothing():
        assert_error(spec, harness.capture(arguments), "UNAUTHORIZED")


def test_ret_002_retain_with_host_permission(tmp_path: Path) -> None:
    """RET-002: a host that permits retain commits the capture; the record keeps the rule."""
    with open_harness(tmp_path / "state", HostPolicy(retain_allowed=True)) as harness:
        retention = {"derivative_rule": "retain"}
        record_id = harness.accepted(retention=retention)
        assert value_of(harness.get(record_id))["record"]["retention"] == retention


def test_make_ineligible_needs_no_permission(harness: Harness) -> None:
    """RET-001: the default rule, stated explicitly, is accepted under the default policy."""
    arguments = capture_arguments(harness.key(), retention={"derivative_rule": "make-ineligible"})
    assert value_of(harness.capture(arguments))["status"] == "committed_pending"


@pytest.mark.parametrize(
    "families",
    [["family:a"], ["family:a", "family:z"], ["family:z"]],
    ids=["one", "mixed", "other"],
)
def test_life_021_unconsented_family_is_unauthorized(
    tmp_path: Path, spec: Spec, families: list[str]
) -> None:
    """LIFE-021: every family must be consented; one outside the host's list refuses it all."""
    policy = HostPolicy(reconciliation_families=frozenset({"family:b"}))
    with open_harness(tmp_path / "state", policy) as harness:
        arguments = capture_arguments(harness.key(), family_refs=families)
        with harness.writes_nothing():
            assert_error(spec, harness.capture(arguments), "UNAUTHORIZED")


def test_life_021_consented_families_are_accepted(tmp_path: Path) -> None:
    """LIFE-021: families the host consents to (and an empty list) are accepted."""
    policy = HostPolicy(reconciliation_families=frozenset({"family:a", "family:b"}))
    with open_harness(tmp_path / "state", policy) as harness:
        for families in (["family:a", "family:b"], ["family:b"], []):
            arguments = capture_arguments(harness.key(), family_refs=families)
            assert value_of(harness.capture(arguments))["status"] == "committed_pending"


def test_life_021_default_policy_consents_to_no_family(harness: Harness, spec: Spec) -> None:
    """LIFE-021: the default descriptor lists no family."""
    arguments = capture_arguments(harness.key(), family_refs=["family:any"])
    assert_error(spec, harness.capture(arguments), "UNAUTHORIZED")
