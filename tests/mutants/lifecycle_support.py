"""Helpers of the lifecycle, retention and privacy mutant tests: verdict sets, forged answers."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from engram_conformance.conformance.engram_memory.checks.context import CAPTURE
from engram_conformance.conformance.runner import RunResult
from engram_conformance.reference_impl.engram_memory.envelope import failure, success
from engram_conformance.spec.engram_memory import load

from ..conformance.inprocess import ServiceProxy

BROKEN = ("fail", "warn")
SOME_DIGEST = "sha256:" + "0" * 64


def broken_rules(result: RunResult, family: str) -> set[str]:
    """The rules of ``family`` the run reports broken (fail or warn)."""
    return {
        rule
        for rule, verdict in result.verdicts.items()
        if rule.startswith(f"{family}-") and verdict.verdict in BROKEN
    }


def verdicts(result: RunResult, family: str) -> dict[str, str]:
    """The verdict of every rule of ``family``."""
    return {rule: v.verdict for rule, v in result.verdicts.items() if rule.startswith(f"{family}-")}


def all_pass(family: str) -> dict[str, str]:
    """What a conforming server gets: pass, and not_applicable for the untestable rules."""
    rules = load().rules.values()
    return {
        rule.id: "pass" if rule.testable else "not_applicable"
        for rule in rules
        if rule.family == family
    }


def edited(envelope: dict[str, Any], edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A copy of a success ``envelope`` whose output value ``edit`` changed (errors unchanged)."""
    if not envelope.get("ok"):
        return envelope
    changed = copy.deepcopy(envelope)
    edit(changed["output"]["value"])
    return changed


def status(envelope: dict[str, Any]) -> str | None:
    """The outcome status of an admission envelope (None for an error)."""
    return envelope["output"]["value"]["outcome"]["status"] if envelope["ok"] else None


def refusal(code: str, context: Any) -> dict[str, Any]:
    """The error envelope of ``code`` answering the call bound to ``context``."""
    return failure(load(), code, context.audit_id)


def forged_receipt(context: Any, operation: str, from_state: str, to_state: str) -> dict[str, Any]:
    """A success envelope with a well-formed lifecycle receipt for a transition never made."""
    receipt = {
        "event_id": "evt_forged",
        "operation": operation,
        "from_state": from_state,
        "to_state": to_state,
        "cursor": "0",
        "event_digest": SOME_DIGEST,
        "authorization_receipt_digest": SOME_DIGEST,
        "transaction_receipt_digest": SOME_DIGEST,
    }
    value: dict[str, Any] = {"receipt": receipt, "replayed": False}
    if operation == "withdraw":
        value["key_destruction"] = "complete"
    else:
        value["projection_invalidation"] = "complete"
    return success(value, context.audit_id)


class IgnoresExpiry(ServiceProxy):
    """The server drops retention.expires_at: records never expire (LIFE-015, LIFE-018, RET-006)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == CAPTURE and "retention" in arguments["payload"]:
            arguments = copy.deepcopy(arguments)
            arguments["payload"]["retention"].pop("expires_at", None)
        return self.inner.call(tool, arguments, context)


def reported(result: RunResult, family: str) -> dict[str, set[str]]:
    """Each rule of ``family`` reported broken -> the checks that recorded its failures."""
    return {
        rule: {failure.check for failure in result.ledger.evidence[rule].failures}
        for rule in broken_rules(result, family)
    }
