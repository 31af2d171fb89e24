"""Servers that break a retention rule (RET): retain taken without the host's permission, a
past expiry dropped, checks in the wrong order, a ceiling above the declared one, records that
never expire."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks.context import CAPTURE
from engram_conformance.reference_impl.engram_memory.policy import (
    DEFAULT_RETENTION_CEILING_S,
    HostPolicy,
)
from engram_conformance.spec.engram_memory import instant_ms, wall_clock_ms

from ...caught import Caught
from ..answers import refusal
from ..base import ServiceProxy
from .lifecycle import IgnoresExpiry


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


def loose_ceiling(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The server runs with ten times the ceiling its descriptor declares (RET-003)."""
    return {"server_policy": HostPolicy(retention_ceiling_s=10 * DEFAULT_RETENTION_CEILING_S)}


#: (mutant, the rules it breaks, each with the checks that report it)
MUTANTS: list[tuple[type, Caught]] = [
    (RetainWithoutPermission, Caught.reported({"RET-002": "retain_needs_host_permission"})),
    (
        PastExpiryMeansNone,
        Caught.reported(
            {
                "RET-004": "expires_at_not_after_capture_is_invalid",
                "RET-005": "past_expiry_outranks_unauthorized",
            }
        ),
    ),
    (PolicyBeforeClock, Caught.reported({"RET-005": "past_expiry_outranks_unauthorized"})),
]
#: What the loose ceiling breaks.
ABOVE_THE_CEILING = Caught.reported({"RET-003": "retention_ceiling_is_enforced"})
#: The mutants of the full profile's check that waits for an expiry, and what they break.
EXPIRY: list[tuple[type, Caught]] = [
    (IgnoresExpiry, Caught.reported({"RET-006": "expired_record_is_ineligible"})),
]
