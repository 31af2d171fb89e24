"""mem servers whose mem_judge goes wrong (JUDGE) the way real ones do: the seed's list form
refused or published as something else, a single or unknown id judged, verdicts that change from
one call to the next, no candidates surfaced, a verdict that cannot be recorded, an unknown
judgment or a relation outside upstream's six taken as recorded.

Each rewrites the reference's mem_judge or mem_save calls (``CallMutant``) or its listing.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.judgments import RELATIONS
from engram_conformance.reference_impl.mem.server import Handlers

from ...caught import Caught
from ..seams import CallMutant, answering, mem_caught, text_of
from .discovery import WiringMutant

JUDGE, SAVE = "mem_judge", "mem_save"
#: the seed's verdict words, each with the one a changing judge gives instead
_SWAPPED = {
    "contradictory": "complementary",
    "complementary": "outdated",
    "outdated": "unrelated",
    "unrelated": "contradictory",
}
_VERDICT_LINE = re.compile(r"^(#\d+: )(\w+)$", re.MULTILINE)


class JudgeAnswers(CallMutant):
    """The reference, with ``judged`` rewriting what mem_judge answers."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        return self.judged(arguments, result) if tool == JUDGE else result

    def judged(self, arguments: dict[str, Any], result: types.CallToolResult) -> Any:
        return result


def _all_unrelated(ids: list[Any]) -> str:
    """The list form's answer with every id unrelated and no pair."""
    return "\n".join([f"Judged {len(ids)} memories (0 pairs):", *(f"#{i}: unrelated" for i in ids)])


class ListFormRefused(CallMutant):
    """mem_judge does not read ids: only upstream's judgment_id form is served."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in arguments.items() if k != "ids"} if tool == JUDGE else arguments


class IdsListedAsText(WiringMutant):
    """mem_judge publishes ids as a string (a comma-separated list) rather than an array."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        tools[JUDGE]["inputSchema"]["properties"]["ids"] = {"type": "string"}


class OneIdJudged(JudgeAnswers):
    """mem_judge of a single id answers a verdict on it (nothing to compare it with)."""

    def judged(self, arguments: dict[str, Any], result: types.CallToolResult) -> Any:
        ids = arguments.get("ids")
        if isinstance(ids, list) and len(ids) == 1:
            return answering(result, _all_unrelated(ids), is_error=False)
        return result


class UnknownIdJudged(JudgeAnswers):
    """mem_judge of an id no memory has judges it unrelated instead of failing."""

    def judged(self, arguments: dict[str, Any], result: types.CallToolResult) -> Any:
        ids = arguments.get("ids")
        if result.is_error and isinstance(ids, list) and "not found" in text_of(result):
            return answering(result, _all_unrelated(ids), is_error=False)
        return result


class VerdictsChange(JudgeAnswers):
    """mem_judge's verdicts on one question change from one asking to the next (a judge sampled
    each time): every second asking of the same arguments swaps them. Counted per question, not
    per call, so that another check's judgments in between (checks side by side) do not make
    two askings alike."""

    def __init__(self, service: Any) -> None:
        super().__init__(service)
        self.asked: Counter[str] = Counter()

    def judged(self, arguments: dict[str, Any], result: types.CallToolResult) -> Any:
        question = json.dumps(arguments, sort_keys=True)
        self.asked[question] += 1
        if result.is_error or self.asked[question] % 2 == 1:
            return result
        text = _VERDICT_LINE.sub(lambda line: line[1] + _SWAPPED[line[2]], text_of(result))
        return answering(result, text)


class NoCandidates(CallMutant):
    """mem_save surfaces no candidates: no judgment to record, however alike the titles."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool != SAVE:
            return result
        lines = text_of(result).split("\n")
        kept = [line for line in lines if not line.startswith(("CONFLICT", "Candidate"))]
        return answering(result, "\n".join(kept))


class VerdictNotRecorded(JudgeAnswers):
    """Recording a verdict on a pending judgment fails in the store."""

    def judged(self, arguments: dict[str, Any], result: types.CallToolResult) -> Any:
        if "judgment_id" in arguments and not result.is_error:
            text = "mem_judge failed: the memory store could not complete the call"
            return answering(result, text, is_error=True)
        return result


class UnknownJudgmentRecorded(JudgeAnswers):
    """mem_judge of an unknown judgment_id answers as if it recorded the verdict."""

    def judged(self, arguments: dict[str, Any], result: types.CallToolResult) -> Any:
        if "judgment_id" in arguments and result.is_error and "not found" in text_of(result):
            recorded = f'Judgment "{arguments["judgment_id"]}" recorded: #0 related #0'
            return answering(result, recorded, is_error=False)
        return result


class AnyRelationTaken(CallMutant):
    """mem_judge takes a relation outside upstream's six as related."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        relation = arguments.get("relation")
        if tool == JUDGE and relation is not None and relation not in RELATIONS:
            return arguments | {"relation": "related"}
        return arguments


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (ListFormRefused, mem_caught("JUDGE-001", "JUDGE-002")),
    (IdsListedAsText, mem_caught("JUDGE-002")),
    (OneIdJudged, mem_caught("JUDGE-002")),
    (UnknownIdJudged, mem_caught("JUDGE-002")),
    (VerdictsChange, mem_caught("JUDGE-002")),
    # without a judgment_id, JUDGE-005's refused relation cannot be tried
    # JUDGE-005 then has no pending judgment to judge: not applicable, charged to JUDGE-004 only
    (NoCandidates, mem_caught("JUDGE-004")),
    (VerdictNotRecorded, mem_caught("JUDGE-004")),
    (UnknownJudgmentRecorded, mem_caught("JUDGE-005")),
    (AnyRelationTaken, mem_caught("JUDGE-005")),
]
