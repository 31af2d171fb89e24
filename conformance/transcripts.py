"""Transcripts of failing checks (one JSON object per line, a call and its answer), read back
for replay, and what replaying one call found."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .observation import Observation

if TYPE_CHECKING:
    from .session import Session


@dataclass(frozen=True)
class Replayed:
    recorded: dict[str, Any]
    observed: Observation
    diff: str  # empty when the masked answers are equal


def read_transcript(path: Path) -> list[dict[str, Any]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def compared(
    entry: dict[str, Any],
    observed: Observation,
    mask: Callable[[Any], Any],
    *,
    replayed: Callable[[Any], Any] = lambda answer: answer,
) -> Replayed:
    """What sending ``entry`` again found: the answer, and its unified diff from the recorded
    one, both passed through ``mask`` (which hides what differs on every run), the new one
    first through ``replayed`` (which names what the replay issued as the recording did)."""
    before, after = (
        json.dumps(mask(answer), indent=1, sort_keys=True, ensure_ascii=False).splitlines()
        for answer in (entry["answer"], replayed(observed.answer()))
    )
    diff = difflib.unified_diff(before, after, "recorded", "replayed", lineterm="")
    return Replayed(entry, observed, "\n".join(diff))


async def replay_as_recorded(session: Session, entries: list[dict[str, Any]]) -> list[Replayed]:
    """Each call sent again as it was recorded, for a contract whose calls carry nothing bound
    to one run (the default replay of ``contracts.Contract``)."""
    done = []
    for entry in entries:
        if entry["method"] == "tools/list":
            observed, _ = await session.list_tools()
        else:
            observed = await session.call(entry["tool"], entry["arguments"], None, None)
        done.append(compared(entry, observed, lambda answer: answer))
    return done
