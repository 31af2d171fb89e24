"""Each retention check fires on a server that breaks its rule; the reference passes them all."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks.context import CAPTURE
from engram_conformance.conformance.targets.descriptor import Policy
from engram_conformance.reference_impl.engram_memory.policy import (
    DEFAULT_RETENTION_CEILING_S,
    HostPolicy,
)
from engram_conformance.spec.engram_memory import instant_ms, wall_clock_ms

from ..conformance.inprocess import ServiceProxy, broken_verdict, run_against
from .lifecycle_support import (
    IgnoresExpiry,
    all_pass,
    broken_rules,
    refusal,
    reported,
    verdicts,
)


def _retention(arguments: Any) -> dict[str, Any]:
    return arguments["payload"].get("retention", {})


def _expired(arguments: Any) -> bool:
    expires_at = _retention(arguments).get("expires_at")
    return expires_at is not None and instant_ms(expires_at) <= wall_clock_ms()


class RetainWithoutPermission(ServiceProxy):
    """derivative_rule retain is quietly stored as make-ineligible, never refused (RET-002)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == CAPTURE and _retention(arguments).get("derivative_rule") == "retain":
            arguments = copy.deepcopy(arguments)
            arguments["payload"]["retention"]["derivative_rule"] = "make-ineligible"
        return self.inner.call(tool, arguments, context)


class PastExpiryMeansNone(ServiceProxy):
    """An expires_at already past is dropped instead of refused (RET-004), so the host policy
    answers for it (RET-005)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == CAPTURE and _expired(arguments):
            arguments = copy.deepcopy(arguments)
            del arguments["payload"]["retention"]["expires_at"]
        return self.inner.call(tool, arguments, context)


class PolicyBeforeClock(ServiceProxy):
    """Retain and reconciliation are refused before expires_at is checked (RET-005)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == CAPTURE and (
            _retention(arguments).get("derivative_rule") == "retain"
            or "reconciliation" in arguments["payload"]
        ):
            return refusal("UNAUTHORIZED", context)
        return self.inner.call(tool, arguments, context)


@pytest.mark.parametrize(
    ("mutant", "broken"),
    [
        (RetainWithoutPermission, {"RET-002": {"retain_needs_host_permission"}}),
        (
            PastExpiryMeansNone,
            {
                "RET-004": {"expires_at_not_after_capture_is_invalid"},
                "RET-005": {"past_expiry_outranks_unauthorized"},
            },
        ),
        (PolicyBeforeClock, {"RET-005": {"past_expiry_outranks_unauthorized"}}),
    ],
    ids=lambda value: value.__name__ if isinstance(value, type) else "",
)
def test_retention_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], broken: dict[str, set[str]]
) -> None:
    """The mutant breaks exactly these RET rules, each reported by the checks named."""
    result = run_against(tmp_path, service_mutant=mutant, only=("RET",))
    assert reported(result, "RET") == broken
    for rule in broken:
        assert result.verdicts[rule].verdict == broken_verdict(rule)


def test_a_ceiling_above_the_declared_one_is_caught(tmp_path: Path) -> None:
    """The server runs with ten times the ceiling its descriptor declares (RET-003)."""
    loose = HostPolicy(retention_ceiling_s=10 * DEFAULT_RETENTION_CEILING_S)
    result = run_against(tmp_path, server_policy=loose, only=("RET",))
    assert reported(result, "RET") == {"RET-003": {"retention_ceiling_is_enforced"}}
    assert result.verdicts["RET-003"].verdict == broken_verdict("RET-003")


@pytest.mark.parametrize(
    ("mutant", "rule", "check"),
    [(IgnoresExpiry, "RET-006", "expired_record_is_ineligible")],
    ids=["IgnoresExpiry"],
)
def test_expiry_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], rule: str, check: str
) -> None:
    result = run_against(tmp_path, service_mutant=mutant, only=(rule,), profile="full")
    assert reported(result, "RET") == {rule: {check}}
    assert result.verdicts[rule].verdict == broken_verdict(rule)


def test_the_reference_passes_every_retention_rule(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("RET",), profile="full")
    assert verdicts(result, "RET") == all_pass("RET")


def test_retain_is_committed_where_the_host_permits_it(tmp_path: Path) -> None:
    result = run_against(
        tmp_path,
        server_policy=HostPolicy(retain_allowed=True),
        target_policy=Policy(retain_allowed=True),
        only=("RET",),
    )
    assert broken_rules(result, "RET") == set()
    assert result.verdicts["RET-002"].verdict == "pass"
