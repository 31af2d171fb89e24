"""The approvals the gate checks send for a server to answer gate_failed (GATE-003 to GATE-006):
each is an approval of exactly the call, given at a whole second ``given_ms`` for 60 s, with one
field broken.

A case names the field it breaks and the fields it changes: an approval given 45 s ago, say,
also moves ``expires_at`` so that it is still unexpired, and only ``approved_at`` is broken.
Built from the call and the clock alone, so that a test
(``tests/conformance/engram_memory/test_negative_cases.py``) can put the broken field back and
show that the reference then finds the approval holding (issue 29).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engram_conformance.spec.engram_memory import instant, operation_digest

from ..host import ABSENT

#: How long the approvals the cases break live (well within the 300 s TTL).
TTL_MS = 60_000
#: The offset of the time zone one form of ``time_forms`` is written in.
TWO_HOURS_MS = 7_200_000
FIELDS = ("ref", "capability", "target", "operation_digest", "approved_at", "expires_at")


@dataclass(frozen=True)
class ApprovalCase:
    """An approval with ``changed`` set (``ABSENT``: removed), which breaks ``broken`` alone."""

    broken: str
    changed: Mapping[str, Any]

    def applied(self, approval: Mapping[str, Any]) -> dict[str, Any]:
        fields = {**approval, **self.changed}
        return {name: value for name, value in fields.items() if value is not ABSENT}


def whole_second(now_ms: int) -> int:
    """When the cases' approvals are given: ``now_ms`` down to its second, so that every time
    form of ``time_forms`` is exact."""
    return now_ms - now_ms % 1000


def _times(approved_ms: int, expires_ms: int) -> dict[str, str]:
    return {"approved_at": instant(approved_ms), "expires_at": instant(expires_ms)}


def another_call(
    tool: str, sent: dict[str, Any], other_tool: str, other_key: str, target: str | None
) -> dict[str, ApprovalCase]:
    """GATE-003: an approval of another capability, target or operation digest (of the call made
    to ``other_tool``, or with another idempotency key or reason). ``target``: the argument
    that names the call's target; capture has none before it runs (that its approval names the
    idempotency_key is GATE-013's), so no target case."""
    changed = [("idempotency_key", other_key)]
    if "reason_ref" in sent:
        changed.append(("reason_ref", "reason:another"))
    cases = {f"capability {other_tool}": ApprovalCase("capability", {"capability": other_tool})}
    if target is not None:
        cases["another target"] = ApprovalCase("target", {"target": f"{sent[target]}-other"})
    digests = {
        f"the operation digest of this call made to {other_tool}": operation_digest(
            other_tool, sent
        ),
        **{
            f"the operation digest of another {name}": operation_digest(tool, {**sent, name: value})
            for name, value in changed
        },
    }
    for case, digest in digests.items():
        cases[case] = ApprovalCase("operation_digest", {"operation_digest": digest})
    return cases


def out_of_time(given_ms: int) -> dict[str, ApprovalCase]:
    """GATE-004: a TTL of 300.001 s; an approval given 20 s ago that expired 10 s ago."""
    return {
        "a TTL of 300.001 s": ApprovalCase(
            "expires_at", {"expires_at": instant(given_ms + 300_001)}
        ),
        "an approval expired 10 s ago": ApprovalCase(
            "expires_at", _times(given_ms - 20_000, given_ms - 10_000)
        ),
    }


def stale(given_ms: int) -> dict[str, ApprovalCase]:
    """GATE-005: an unexpired approval given 45 s ago (beyond the 30 s window; a 120 s TTL)."""
    return {
        "an unexpired approval given 45 s ago": ApprovalCase(
            "approved_at", _times(given_ms - 45_000, given_ms + 75_000)
        )
    }


def malformed(given_ms: int) -> dict[str, ApprovalCase]:
    """GATE-006: each field missing, each time in another form (``time_forms``), an approval
    given 20 s ahead (beyond the 5 s skew; a 60 s TTL)."""
    return {
        **{f"no {name}": ApprovalCase(name, {name: ABSENT}) for name in FIELDS},
        **{
            case: ApprovalCase(name, {name: value})
            for case, (name, value) in time_forms(given_ms).items()
        },
        "an approval 20 s in the future": ApprovalCase(
            "approved_at", _times(given_ms + 20_000, given_ms + 20_000 + TTL_MS)
        ),
    }


def time_forms(given_ms: int, ttl_ms: int = TTL_MS) -> dict[str, tuple[str, Any]]:
    """case -> (the time field, a value of another form than an Instant for the very instant
    that field holds in an approval given at ``given_ms`` for ``ttl_ms``): epoch milliseconds,
    epoch seconds, an Instant without milliseconds, one with the offset +00:00, the local time
    of the zone +02:00, and the Instant inside an array (not a string). ``given_ms`` is a whole
    second, so that every form is exact."""
    at = {"approved_at": given_ms, "expires_at": given_ms + ttl_ms}
    forms: dict[str, tuple[str, Any]] = {}
    for name, ms in at.items():
        text = instant(ms)
        forms |= {
            f"{name} in epoch milliseconds": (name, ms),
            f"{name} in epoch seconds": (name, ms // 1000),
            f"{name} without milliseconds": (name, text[:-5] + "Z"),
            f"{name} with the offset +00:00": (name, text[:-1] + "+00:00"),
            f"{name} in the zone +02:00": (name, instant(ms + TWO_HOURS_MS)[:-1] + "+02:00"),
            f"{name} not a string (the Instant in an array)": (name, [text]),
        }
    return forms
