"""Replay a mem check's transcript against a server and show where the answers differ.

Each recorded call is sent again in order (a mem call carries no context to re-sign). The ids a
server issues are learnt as the replay goes, from the answers the reader understands (a save's
id, a search's hits in order, a started session's id): a later call that names a recorded id
(``id``, ``observation_id``, ``session_id``, the ``ids`` of the seed's ``mem_judge``) names the
replay's memory or session instead,
and in the replayed answer the replay's ids read as the recording's (integers where the text
names them, a string id wherever it stands, the structured content too). Times the server writes
differ on every run and are masked in both answers; every other difference shows in the diff.
"""

from __future__ import annotations

import re
from typing import Any

from ..observation import Observation
from ..session import Session
from ..transcripts import Replayed, compared
from .answer_text import Unreadable, joined_answer
from .answers import read
from .facts import MemoryId, Saved, SearchResult, SessionStarted

#: the arguments that name a memory (or a session) by the id the server issued
ID_ARGUMENTS = ("id", "observation_id", "ids", "session_id")
#: a time as the versions write it: RFC 3339, SQLite's ``YYYY-MM-DD HH:MM:SS``, with fractions
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
#: where an answer's text names a memory's id: ``#12``, ``ID: 12``, JSON ``"id": 12``
ID_IN_TEXT = re.compile(r'(?P<lead>#|\bID: |"(?:id|observation_id)":\s*)(?P<id>\d+)\b')
TIME_MASK = "<time>"


def masked_times(answer: Any) -> Any:
    """``answer`` with every time in its strings masked."""
    if isinstance(answer, str):
        return TIME.sub(TIME_MASK, answer)
    if isinstance(answer, dict):
        return {key: masked_times(value) for key, value in answer.items()}
    if isinstance(answer, list):
        return [masked_times(item) for item in answer]
    return answer


class IssuedIds:
    """The recording's ids and the replay's, paired as the replay learns them."""

    def __init__(self) -> None:
        self.replayed: dict[MemoryId, MemoryId] = {}  # recorded id -> the replay's
        self.recorded: dict[MemoryId, MemoryId] = {}  # the replay's id -> recorded

    def learn(self, tool: str, recorded: dict[str, Any], observed: Observation) -> None:
        """Pair the ids of the recorded answer of ``tool`` with those of the replay's."""
        before, after = _ids(tool, recorded), _ids(tool, observed.answer())
        if len(before) == len(after):
            for old, new in zip(before, after, strict=True):
                self.replayed[old] = new
                self.recorded[new] = old

    def arguments(self, arguments: Any) -> Any:
        """The recorded ``arguments`` naming the replay's memories."""
        if not isinstance(arguments, dict):
            return arguments
        return {
            name: _renamed(value, self.replayed) if name in ID_ARGUMENTS else value
            for name, value in arguments.items()
        }

    def as_recorded(self, answer: Any) -> Any:
        """The replayed ``answer`` with the replay's ids read as the recording's."""
        if not isinstance(answer, dict):
            return answer
        return {key: self._as_recorded(value) for key, value in answer.items()}

    def _as_recorded(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: self._as_recorded(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._as_recorded(item) for item in value]
        if isinstance(value, str):
            for new, old in self.recorded.items():
                if isinstance(new, str) and isinstance(old, str):
                    value = value.replace(new, old)
            return ID_IN_TEXT.sub(self._recorded_id, value)
        if isinstance(value, int) and not isinstance(value, bool):
            return self.recorded.get(value, value)
        return value

    def _recorded_id(self, found: re.Match[str]) -> str:
        number = int(found["id"])
        return f"{found['lead']}{self.recorded.get(number, number)}"


def _ids(tool: str, answer: dict[str, Any]) -> list[MemoryId]:
    """The ids an answer issues or lists, in order (none when it cannot be read)."""
    structured = answer.get("structuredContent")
    structured = structured if isinstance(structured, dict) else None
    texts = [answer.get("text") or "", *answer.get("moreTexts", ())]
    if answer.get("isError") or (answer.get("text") is None and structured is None):
        return []
    try:
        fact = read(tool, joined_answer(texts, False, structured))
    except Unreadable:
        return []
    if isinstance(fact, Saved) and fact.id is not None:
        return [fact.id]
    if isinstance(fact, SearchResult):
        return fact.ids
    if isinstance(fact, SessionStarted):
        return [fact.id]
    return []


def _renamed(value: Any, ids: dict[MemoryId, MemoryId]) -> Any:
    if isinstance(value, list):
        return [_renamed(item, ids) for item in value]
    if isinstance(value, int | str) and not isinstance(value, bool):
        return ids.get(value, value)
    return value


async def replay(session: Session, entries: list[dict[str, Any]]) -> list[Replayed]:
    ids = IssuedIds()
    done = []
    for entry in entries:
        if entry["method"] == "tools/list":
            observed, _ = await session.list_tools()
            done.append(compared(entry, observed, masked_times))
            continue
        arguments = ids.arguments(entry["arguments"])
        observed = await session.call(entry["tool"], arguments, None, None)
        ids.learn(entry["tool"], entry["answer"], observed)
        done.append(compared(entry, observed, masked_times, replayed=ids.as_recorded))
    return done
