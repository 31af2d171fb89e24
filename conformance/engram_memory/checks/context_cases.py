"""The signed contexts the host-binding checks send for a server to refuse (HOST-003, HOST-004,
HOST-005, HOST-008, HOST-010, HOST-011, HOST-023): each is the valid claims of a call with one
claim broken.

A case names the claim it breaks and the claims it changes: a context that expired, say, also
moves ``iat`` back so that its lifetime stays within 300 s, and only ``exp`` is broken. Built
from the valid claims and the clock alone, so that a test
(``tests/conformance/engram_memory/test_negative_cases.py``) can put the broken claim back and
show that the reference then accepts the context (issue 29).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engram_conformance.spec.engram_memory import instant

from ..host import ABSENT

#: The required claims that are strings (``tool``, compared with the tool called, is HOST-005's).
STRING_CLAIMS = (
    "tenant",
    "workspace",
    "principal",
    "agent_id",
    "session",
    "purpose_ref",
    "audit_id",
)


@dataclass(frozen=True)
class ClaimCase:
    """Valid claims with ``changed`` set (``ABSENT``: removed), which breaks ``broken`` alone."""

    broken: str
    changed: Mapping[str, Any]

    def applied(self, bound: Mapping[str, Any]) -> dict[str, Any]:
        claims = {**bound, **self.changed}
        return {name: value for name, value in claims.items() if value is not ABSENT}


def untimely(now_s: int) -> dict[str, ClaimCase]:
    """Contexts refused for their times: expired (a 60 s lifetime), living 301 s, issued 20 s
    ahead (beyond the 5 s skew; a 60 s lifetime)."""
    return {
        "expired 10 s ago": ClaimCase("exp", {"iat": now_s - 70, "exp": now_s - 10}),
        "exp - iat 301 s": ClaimCase("exp", {"iat": now_s, "exp": now_s + 301}),
        "iat 20 s in the future": ClaimCase("iat", {"iat": now_s + 20, "exp": now_s + 80}),
    }


def timely(now_s: int) -> dict[str, dict[str, int]]:
    """The times at the edges a server must accept: a 300 s lifetime, iat 3 s ahead (within the
    5 s skew, with a margin for the two clocks)."""
    return {
        "exp - iat 300 s": {"iat": now_s, "exp": now_s + 300},
        "iat 3 s in the future": {"iat": now_s + 3, "exp": now_s + 63},
    }


def missing(required: Iterable[str]) -> dict[str, ClaimCase]:
    """Each required claim left out."""
    return {f"no {claim} claim": ClaimCase(claim, {claim: ABSENT}) for claim in required}


def another_tool(tool: str, tools: list[str]) -> dict[str, ClaimCase]:
    """A context naming the next tool of ``tools`` instead of ``tool``."""
    other = tools[(tools.index(tool) + 1) % len(tools)]
    return {f"a context naming {other}": ClaimCase("tool", {"tool": other})}


def disabled(tool: str, tools: list[str]) -> dict[str, ClaimCase]:
    """tools claims that leave ``tool`` out (HOST-008, HOST-011): none enabled, the others of
    ``tools``, its neighbour in ``tools`` alone."""
    others = [name for name in tools if name != tool]
    neighbour = tools[(tools.index(tool) + 1) % len(tools)]
    cases = {"the tools claim []": [], f"the tools claim {others}": others}
    if neighbour != tool:
        cases[f"the tools claim {[neighbour]}"] = [neighbour]
    return {case: ClaimCase("tools", {"tools": enabled}) for case, enabled in cases.items()}


def malformed(bound: Mapping[str, Any], tool: str, now_ms: int) -> dict[str, ClaimCase]:
    """Claims of the wrong type or form: iat or exp not an integer (a fraction adds half a
    second, within the skew), a deadline 60 s ahead that is not an Instant, a tools claim that
    is not a list of tool names (each still names ``tool``, so that it is not merely disabled),
    a required string claim empty or not a string, a cancellation_ref that is not a string."""
    ahead = now_ms + 60_000
    forms: dict[str, tuple[str, Any]] = {
        "iat a string": ("iat", str(bound["iat"])),
        "iat with a fraction": ("iat", bound["iat"] + 0.5),
        "exp a string": ("exp", str(bound["exp"])),
        "exp with a fraction": ("exp", bound["exp"] + 0.5),
        "deadline without milliseconds": ("deadline", instant(ahead)[:-5] + "Z"),
        "deadline in epoch milliseconds": ("deadline", ahead),
        "deadline not a time": ("deadline", "in a minute"),
        "tools a string naming the tool": ("tools", tool),
        "tools with a number besides the tool": ("tools", [tool, 42]),
        "tools with a name of no tool's form besides the tool": ("tools", [tool, "search"]),
        "cancellation_ref a number": ("cancellation_ref", 42),
        **{f"{claim} empty": (claim, "") for claim in STRING_CLAIMS},
        **{f"{claim} a number": (claim, 42) for claim in STRING_CLAIMS},
    }
    return {case: ClaimCase(name, {name: value}) for case, (name, value) in forms.items()}


def other_purposes(bound: str) -> tuple[str, ...]:
    """purpose_ref arguments other than the ``bound`` purpose, each by one thing: another
    purpose, the bound one upper-cased, the bound one with a space after it (HOST-006)."""
    return ("purpose:another", bound.upper(), bound + " ")
