"""The captures the policy and clock checks expect refused (RET-002, RET-004, LIFE-021) each
differ from their control, which the reference accepts, in one place (issue 29): the control is
the refused call with its one broken part put back, under a key of its own (``lifecycle_steps.
rekeyed``), so that the refusal shows that part refused and nothing else."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.service import MemoryService

from ..inprocess import run_against

CAPTURE = "engram_memory_capture"
KEY = "idempotency_key"


class Spy:
    """The reference service, every capture and its answer kept in order."""

    def __init__(self, inner: MemoryService) -> None:
        self.inner = inner
        self.captures: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        answer = self.inner.call(tool, arguments, context)
        if tool == CAPTURE:
            self.captures.append((arguments, answer))
        return answer

    def close(self) -> None:
        self.inner.close()


def _places(one: Any, other: Any, at: str = "") -> list[str]:
    """The JSON Pointers where ``one`` and ``other`` differ (a whole value where types or
    list lengths differ)."""
    if isinstance(one, dict) and isinstance(other, dict):
        return [
            p
            for k in one.keys() | other.keys()
            for p in _places(one.get(k), other.get(k), f"{at}/{k}")
        ]
    if isinstance(one, list) and isinstance(other, list) and len(one) == len(other):
        return [
            p
            for i, pair in enumerate(zip(one, other, strict=True))
            for p in _places(*pair, f"{at}/{i}")
        ]
    return [] if type(one) is type(other) and one == other else [at]


@pytest.mark.parametrize(
    ("rule", "code", "broken"),
    [
        ("RET-002", "UNAUTHORIZED", "/payload/retention/derivative_rule"),
        ("RET-004", "INVALID_SCHEMA", "/payload/retention/expires_at"),
        ("LIFE-021", "UNAUTHORIZED", "/payload/reconciliation/family_refs"),
    ],
)
def test_a_refused_capture_differs_from_its_control_in_one_place(
    tmp_path: Path, rule: str, code: str, broken: str
) -> None:
    spies: list[Spy] = []

    def spying(inner: MemoryService) -> Spy:
        spies.append(Spy(inner))
        return spies[-1]

    result = run_against(tmp_path, service_mutant=spying, only=(rule,))
    assert result.verdicts[rule].verdict == "pass"
    (spy,) = spies
    refused = [n for n, (_, answer) in enumerate(spy.captures) if not answer["ok"]]
    assert [spy.captures[n][1]["error"]["code"] for n in refused] == [code]
    (control, accepted), (case, _) = spy.captures[refused[0] - 1], spy.captures[refused[0]]
    assert accepted["ok"]
    assert sorted(_places(control, case)) == sorted([f"/{KEY}", broken])
