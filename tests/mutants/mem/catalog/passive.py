"""mem servers whose passive capture goes wrong (PASS): free text without a learnings heading
ignored, a whole list stored as one memory, content made optional, an error for text with
nothing to learn, learnings stored again on each capture or under another type.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.arguments import Arguments
from engram_conformance.reference_impl.mem.call import Call
from engram_conformance.reference_impl.mem.memories import DUPLICATE, Draft, Saved
from engram_conformance.reference_impl.mem.passive import title_of
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import Answer, MemService
from engram_conformance.reference_impl.mem.text import one_line

from ...caught import Caught
from ..seams import (
    CallMutant,
    ServiceMutant,
    ServingMutant,
    SlowerThanLinear,
    answering,
    mem_caught,
    text_of,
)

CAPTURE = "mem_capture_passive"
NOTHING_CAPTURED = "Passive capture complete: extracted=0 saved=0 duplicates=0"
#: upstream's learnings heading (``## Key Learnings:``, ``### Aprendizajes``, …)
HEADING = re.compile(
    r"^#{2,3}\s+(key\s+learnings?|learnings?|aprendizajes(\s+clave)?)\s*:?\s*$",
    re.IGNORECASE | re.MULTILINE,
)


def content_of(sent: Any) -> str:
    content = sent.get("content")
    return content if isinstance(content, str) else ""


class CapturesOnlyUnderHeading(ServingMutant):
    """mem_capture_passive extracts nothing from text without a learnings heading (upstream),
    such as seed 003's error log."""

    def serve(self, tool: str, sent: Any) -> Answer:
        content = content_of(sent)
        if tool == CAPTURE and content.strip() and not HEADING.search(content):
            return Answer(NOTHING_CAPTURED, is_error=False)
        return self.reference(tool, sent)


class StoresTheWholeText(ServingMutant):
    """mem_capture_passive stores the whole text as one passive memory, not each learning."""

    def serve(self, tool: str, sent: Any) -> Answer:
        content = content_of(sent)
        if tool != CAPTURE or not content.strip():
            return self.reference(tool, sent)
        call = Call(Arguments(sent), self.store, self.service.memories, self.service.current)
        project = call.project()
        draft = Draft.of(
            title=title_of(one_line(content)),
            content=content,
            type="passive",
            project=project,
            session_id=call.session_id(project),
        )
        [saved] = self.service.memories.capture([draft])
        repeated = saved.outcome == DUPLICATE
        counts = f"saved={int(not repeated)} duplicates={int(repeated)}"
        return Answer(f"Passive capture complete: extracted=1 {counts}", is_error=False)


class ContentOptional(CallMutant):
    """mem_capture_passive takes a missing content for an empty text: it captures nothing,
    without error (an empty content given is still refused)."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == CAPTURE and "content" not in arguments:
            return arguments | {"content": "(no content)"}
        return arguments


class EmptyContentTaken(CallMutant):
    """mem_capture_passive checks that content is given, not that it holds anything: an empty
    one captures nothing, without error (a missing one is still refused)."""

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == CAPTURE and arguments.get("content") == "":
            return arguments | {"content": "(no content)"}
        return arguments


class NothingToLearnIsAnError(CallMutant):
    """mem_capture_passive answers isError when the text holds no learning."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool == CAPTURE and not result.is_error and "extracted=0 " in text_of(result):
            return answering(result, "no learnings found in the content", is_error=True)
        return result


class CaptureStoresRepeats(ServiceMutant):
    """mem_capture_passive stores a learning again each time it is captured (no dedupe)."""

    def patch(self, service: MemService) -> None:
        service.store.same_contents = lambda normalized_hashes, project: {}  # type: ignore[method-assign]


class CapturedAsLearning(ServiceMutant):
    """mem_capture_passive stores its learnings with type learning, not passive."""

    def patch(self, service: MemService) -> None:
        reference = service.memories.capture

        def captured(drafts: list[Draft]) -> list[Saved]:
            return reference([replace(draft, type="learning") for draft in drafts])

        service.memories.capture = captured  # type: ignore[method-assign]


#: each mutant and what it breaks
class QuadraticCapture(SlowerThanLinear):
    """mem_capture_passive rescans its text from every heading: its cost grows with the square
    of the text's length, seconds for 100 kB."""

    tool, worst = "mem_capture_passive", 100_000

    def size(self, arguments: dict[str, Any]) -> int:
        return len(str(arguments.get("content", "")))


MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (CapturesOnlyUnderHeading, mem_caught("PASS-001")),
    (StoresTheWholeText, mem_caught("PASS-002")),
    (ContentOptional, mem_caught("PASS-003", about={"PASS-003": "of no content"})),
    (EmptyContentTaken, mem_caught("PASS-003", about={"PASS-003": "of {'content': ''}"})),
    (NothingToLearnIsAnError, mem_caught("PASS-003")),
    (CaptureStoresRepeats, mem_caught("PASS-004")),
    (CapturedAsLearning, mem_caught("PASS-005")),
    (QuadraticCapture, mem_caught("PASS-006")),
]
