"""Reading what a ``mem_*`` tool answered, in any version's format, into the facts of ``facts``.

One entry point, ``read(tool, result)``, and one typed reader per tool named after it
(``mem_save(result) -> Saved | ToolFailure``). ``result`` is the MCP ``CallToolResult`` or an
answer already taken apart (the harness's ``Observation``, or ``Answer(text, is_error)``).

- An ``isError`` answer, of any tool, is a ``ToolFailure``: v1.7.0's plain message, or v1.1x's
  structured ``{"error_code", "message", "available_projects", "hint"}``.
- A successful answer is read in layers: its ``structuredContent`` (and the fields the target
  descriptor's ``[answers]`` table declares) as data (``answer_data``); then its text by the
  tool's reader, whatever wraps it: v1.7.0's plain text, the JSON-in-text of v1.1x and later
  (``{"project", "project_source", "project_path", "result", …}``), the reference's text (which
  may add ``ID: <n>`` to ``mem_save``'s answer); then a JSON text of the vendor's own keys.
- Readers pull fields; they never compare whole texts. They let pass what versions add (lines,
  JSON keys, warnings) and refuse what they cannot read: ``Unreadable(tool, text, why)``, which a
  check turns into a not-applicable verdict with the text as its evidence (an answer the kit
  cannot read is no fault of the server). So a fact is never half-guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Generic, TypeVar

from mcp_types import CallToolResult

from .answer_data import data_of, read_data
from .answer_text import (
    Answer,
    TextAnswer,
    Unpacked,
    Unreadable,
    answer_of,
    everything_shown,
    json_object,
    unpack,
)
from .curation import (
    read_comparison,
    read_current_project,
    read_diagnosis,
    read_judge,
    read_merge,
    read_pin,
    read_project_list,
    read_review,
)
from .facts import (
    Compared,
    Context,
    CurrentProject,
    Deleted,
    Diagnosis,
    Fact,
    JudgedMemories,
    Judgement,
    JudgmentRecorded,
    Merged,
    Observation,
    PassiveCapture,
    Pinned,
    ProjectList,
    PromptSaved,
    Reviewed,
    ReviewList,
    Saved,
    SearchResult,
    SessionEnded,
    SessionStarted,
    Stats,
    Suggestion,
    SummarySaved,
    Timeline,
    ToolFailure,
    Updated,
)
from .listings import read_context, read_search, read_timeline
from .memories import read_delete, read_observation, read_save, read_suggestion, read_update
from .sessions import (
    read_passive_capture,
    read_prompt,
    read_session_end,
    read_session_start,
    read_session_summary,
    read_stats,
)

F_co = TypeVar("F_co", bound=Fact, covariant=True)


def enveloped(data: Mapping[str, Any]) -> bool:
    """Whether a JSON text is upstream's envelope, whose ``"result"`` text the dialects read:
    its other keys are never read on their own (they could contradict that text)."""
    return isinstance(data.get("result"), str) and "project_source" in data


def read_failure(tool: str, text: str) -> ToolFailure:
    """An ``isError`` answer. A JSON object with ``error_code`` or ``message`` is the structured
    style; any other text (a JSON report of ``mem_doctor`` included) is the message itself."""
    fields = json_object(tool, text)
    if fields is None or ("error_code" not in fields and "message" not in fields):
        return ToolFailure(message=text)
    return ToolFailure(
        message=fields.string("message"),
        error_code=fields.optional_string("error_code"),
        available_projects=fields.strings("available_projects"),
        hint=fields.optional_string("hint"),
        recovery_token=fields.optional_string("recovery_token"),
    )


@dataclass(frozen=True)
class ToolReader(Generic[F_co]):
    """The reader of one tool's answers: its failures, or its successes in layers: the answer's
    data (``answer_data``: structured content, a JSON object of the vendor's keys, the fields
    ``declared`` in the descriptor) as its ``kind`` of fact, then its text through ``reader``
    (the dialects)."""

    tool: str
    reader: Callable[[Unpacked], F_co]
    #: the kinds of fact the tool answers, read from data too, the first that reads wins
    #: (none: text only, for one of upstream's own tools whose dialect is already JSON)
    kinds: tuple[type[F_co], ...] = ()

    def __call__(
        self, result: CallToolResult | TextAnswer, declared: Mapping[str, str] | None = None
    ) -> F_co | ToolFailure:
        answer = answer_of(self.tool, result)
        if answer.is_error:
            return read_failure(self.tool, answer.text)
        return replace(self.success(answer, declared or {}), shown=everything_shown(answer))

    def success(self, answer: Answer, declared: Mapping[str, str]) -> F_co:
        """The first layer that reads the answer: its structured content or declared fields,
        then the text dialects, then a JSON text of the vendor's own keys."""
        data = data_of(answer)
        given_as_data = bool(declared) or answer.structured is not None
        layers = self._data_layers("data", answer, data, declared) if given_as_data else []
        layers.append(("as text", lambda: self.reader(unpack(self.tool, answer.text))))
        if data is not None and not given_as_data and not enveloped(data):
            layers += self._data_layers("JSON", answer, data, {})
        tried: list[tuple[str, Unreadable]] = []
        for name, layer in layers:
            try:
                return layer()
            except Unreadable as unreadable:
                tried.append((name, unreadable))
        if len(tried) == 1:
            raise tried[0][1]
        why = "; ".join(f"{name}: {unreadable.why}" for name, unreadable in tried)
        raise Unreadable(self.tool, answer.text, why)

    def _data_layers(
        self,
        form: str,
        answer: Answer,
        data: Mapping[str, Any] | None,
        declared: Mapping[str, str],
    ) -> list[tuple[str, Callable[[], F_co]]]:
        """A layer reading ``data`` (given in ``form``) as each kind of fact, named by the kind
        where there are several."""
        several = len(self.kinds) > 1
        return [
            (
                f"as {kind.__name__} {form}" if several else f"as {form}",
                partial(read_data, kind, self.tool, answer, data, declared),
            )
            for kind in self.kinds
        ]


mem_save = ToolReader[Saved]("mem_save", read_save, (Saved,))
mem_search = ToolReader[SearchResult]("mem_search", read_search, (SearchResult,))
mem_get_observation = ToolReader[Observation](
    "mem_get_observation", read_observation, (Observation,)
)
mem_update = ToolReader[Updated]("mem_update", read_update, (Updated,))
mem_delete = ToolReader[Deleted]("mem_delete", read_delete, (Deleted,))
mem_suggest_topic_key = ToolReader[Suggestion](
    "mem_suggest_topic_key", read_suggestion, (Suggestion,)
)
mem_context = ToolReader[Context]("mem_context", read_context, (Context,))
mem_timeline = ToolReader[Timeline]("mem_timeline", read_timeline, (Timeline,))
mem_session_start = ToolReader[SessionStarted](
    "mem_session_start", read_session_start, (SessionStarted,)
)
mem_session_end = ToolReader[SessionEnded]("mem_session_end", read_session_end, (SessionEnded,))
mem_session_summary = ToolReader[SummarySaved](
    "mem_session_summary", read_session_summary, (SummarySaved,)
)
mem_save_prompt = ToolReader[PromptSaved]("mem_save_prompt", read_prompt, (PromptSaved,))
mem_capture_passive = ToolReader[PassiveCapture](
    "mem_capture_passive", read_passive_capture, (PassiveCapture,)
)
mem_stats = ToolReader[Stats]("mem_stats", read_stats, (Stats,))
mem_current_project = ToolReader[CurrentProject](
    "mem_current_project", read_current_project, (CurrentProject,)
)
mem_judge = ToolReader[Judgement | JudgedMemories | JudgmentRecorded](
    "mem_judge", read_judge, (JudgedMemories, JudgmentRecorded, Judgement)
)
mem_compare = ToolReader[Compared]("mem_compare", read_comparison)
mem_pin = ToolReader[Pinned]("mem_pin", read_pin)
mem_unpin = ToolReader[Pinned]("mem_unpin", read_pin)
mem_review = ToolReader[ReviewList | Reviewed]("mem_review", read_review)
mem_doctor = ToolReader[Diagnosis]("mem_doctor", read_diagnosis)
mem_merge_projects = ToolReader[Merged]("mem_merge_projects", read_merge)
mem_list_projects = ToolReader[ProjectList]("mem_list_projects", read_project_list)

#: Every tool's reader, by tool name.
READERS: dict[str, ToolReader[Fact]] = {
    reader.tool: reader
    for reader in (
        mem_save,
        mem_search,
        mem_get_observation,
        mem_update,
        mem_delete,
        mem_suggest_topic_key,
        mem_context,
        mem_timeline,
        mem_session_start,
        mem_session_end,
        mem_session_summary,
        mem_save_prompt,
        mem_capture_passive,
        mem_stats,
        mem_current_project,
        mem_judge,
        mem_compare,
        mem_pin,
        mem_unpin,
        mem_review,
        mem_doctor,
        mem_merge_projects,
        mem_list_projects,
    )
}


def read(
    tool: str, result: CallToolResult | TextAnswer, declared: Mapping[str, str] | None = None
) -> Fact:
    """The fact that ``tool`` answered (``declared``: the places the descriptor's
    ``[answers.<tool>]`` gives its fields); an ``isError`` answer of any tool is a
    ``ToolFailure``.

    Raises ``Unreadable`` for an answer no layer can understand, or a success of a tool no
    reader knows."""
    reader = READERS.get(tool)
    if reader is not None:
        return reader(result, declared)
    answer = answer_of(tool, result)
    if answer.is_error:
        return read_failure(tool, answer.text)
    raise Unreadable(tool, answer.text, "no reader knows the answers of this tool")


__all__ = ["READERS", "Answer", "ToolReader", "Unreadable", "read", "read_failure", *READERS]
