"""Conflict surfacing and recorded verdicts: upstream v1.1x's ``judgment_id`` flow of
``mem_save`` and ``mem_judge``, beside the seed's list form (``judge``).

After a ``mem_save`` that stored new text, the live memories of its project and scope whose
titles resemble its title are its candidates: a candidate's title holds at least half of the
saved title's subject words (``judge.subject_words``, accents folded), and at least one; the
``MOST_CANDIDATES`` that share the most words are kept, the most recently updated first on a
tie. Each candidate gets a pending judgment (``rel-`` and 16 hex digits), which ``mem_judge``
with ``judgment_id`` and ``relation`` (one of ``RELATIONS``) then records; judging again
replaces the verdict. A memory without subject words in its title (such as "T") has none.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from .arguments import ToolError
from .judge import subject_words
from .store import Observation, Store
from .text import folded, quoted

MOST_CANDIDATES = 3
#: the FTS5 hits read before the overlap is counted
_SCANNED = 50
RELATIONS = ("related", "compatible", "scoped", "conflicts_with", "supersedes", "not_conflict")


@dataclass(frozen=True)
class Candidate:
    memory: Observation
    judgment_id: str


def surface(store: Store, saved_id: int) -> list[Candidate]:
    """The candidates of the memory just saved, each with a new pending judgment."""
    with store.transaction():
        saved = store.observation(saved_id)
        words = _title_words(saved.title) if saved is not None else frozenset()
        if saved is None or not words:
            return []
        match = " OR ".join(f'"{word}"' for word in sorted(words))
        shared = {
            memory.id: (len(words & _title_words(memory.title)), memory)
            for memory in store.title_matches(match, saved, _SCANNED)
        }
        needed = max(1, (len(words) + 1) // 2)
        resembling = sorted(
            (memory for count, memory in shared.values() if count >= needed),
            key=lambda memory: (shared[memory.id][0], memory.updated_at, memory.id),
            reverse=True,
        )[:MOST_CANDIDATES]
        candidates = [Candidate(memory, f"rel-{secrets.token_hex(8)}") for memory in resembling]
        for candidate in candidates:
            store.insert_judgment(candidate.judgment_id, saved.id, candidate.memory.id)
        return candidates


def review_lines(candidates: list[Candidate]) -> list[str]:
    """What a save's answer says of its candidates: nothing, or upstream's review line and one
    line per candidate."""
    if not candidates:
        return []
    count = len(candidates)
    lines = [f"CONFLICT REVIEW PENDING — {count} candidate(s); use mem_judge to record verdicts."]
    lines += [
        f"Candidate #{c.memory.id} {c.judgment_id}: {quoted(c.memory.title)} ({c.memory.type})"
        for c in candidates
    ]
    return lines


def project_of(store: Store, judgment_id: str) -> str:
    """The project of a judgment's saved memory (a soft-deleted one too), else ``ToolError``."""
    judgment = store.judgment(judgment_id)
    saved = None if judgment is None else store.observation(judgment.source_id, deleted=True)
    if saved is None:
        raise ToolError(f"Judgment {quoted(judgment_id)} not found")
    return saved.project


def record(store: Store, judgment_id: str, verdict: dict[str, str | float | None]) -> str:
    """Record ``verdict`` (``relation``, ``reason``, ``evidence``, ``confidence``,
    ``session_id``, already checked) on a judgment; the answer's text."""
    with store.transaction():
        judgment = store.judgment(judgment_id)
        if judgment is None:
            raise ToolError(f"Judgment {quoted(judgment_id)} not found")
        store.judge(judgment_id, verdict)
    relation = verdict["relation"]
    return (
        f"Judgment {quoted(judgment_id)} recorded: "
        f"#{judgment.source_id} {relation} #{judgment.target_id}"
    )


def _title_words(title: str) -> frozenset[str]:
    """A title's subject words, accents folded."""
    return frozenset(folded(word) for word in subject_words(title))
