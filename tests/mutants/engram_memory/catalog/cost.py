"""Servers whose cost grows faster than their arguments (SCHEMA-040, the bounded-cost check).

The mutants spend the time their flaw would: pairwise uniqueness over thousands of unsortable
items, a backtracking pattern over a text of repeated ``a.``. They sleep that time rather than
burn it, so that they are as slow on every machine: well past the check's threshold (half the
call time-out, which their test shortens to 6 s) and well inside the time-out.
"""

from __future__ import annotations

import time
from typing import Any

from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE

from ...caught import Caught
from ..answers import value
from ..base import ServiceProxy

#: What the flaw costs on the check's worst case: past half the time-out, inside the time-out.
FLAW_COST_S = 4.0


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


class PairwiseUniqueness(ServiceProxy):
    """Uniqueness of citation ids compares items two by two when they do not sort (objects)."""

    #: what the flaw costs (a test of the time-out makes it cost past it)
    cost_s = FLAW_COST_S

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        ids = arguments.get("evidence", {}).get("citation_ids", []) if tool == CAPTURE else []
        unsortable = sum(isinstance(item, dict) for item in ids)
        if unsortable > 1000:
            time.sleep(self.cost_s)
        return self.inner.call(tool, arguments, context)


class BacktrackingScan(ServiceProxy):
    """The credential scan at admission backtracks on ``a.a.a...``, holding the only call slot:
    another scope's call waits behind it."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.rescanned: set[str] = set()

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == ADMIT and arguments["candidate_id"] in self.rescanned:
            time.sleep(FLAW_COST_S)
        envelope = self.inner.call(tool, arguments, context)
        if tool == CAPTURE and any("a.a.a.a." * 100 in t for t in _strings(arguments)):
            self.rescanned.add(value(envelope).get("candidate_id", ""))
        return envelope


#: Test id -> the mutant, and what it breaks.
MUTANTS = {
    "pairwise-uniqueness": (PairwiseUniqueness, Caught(("SCHEMA-040",))),
    "backtracking-scan": (BacktrackingScan, Caught(("SCHEMA-040",))),
}
