"""``mem_judge``: how two memories relate, by a deterministic rule (seed 003: which are
contradictory, which complementary, which outdated).

For each pair, in this order:

1. **Same topic** — both carry the same topic key, or their types are of one family and their
   titles the same head (the slug of the title before its first ``:``, so "Auth middleware: JWT
   validation" and "Auth middleware: session tokens" share ``auth-middleware``):
   the same content is ``compatible``; otherwise the more recently updated one ``supersedes``
   the other, which is outdated.
2. **Same subject, opposite statements** — the sets of their words (title and content, three
   letters or more, stop words and negations left out) overlap by at least ``SAME_SUBJECT`` of
   the smaller set, and exactly one of them holds a negation ("not", "never", "avoid", "no",
   "nunca"...): ``conflicts``.
3. Otherwise ``compatible`` (complementary: other subjects, or the same one said alike).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from .store import Observation
from .text import slug
from .topic_keys import type_family

SAME_SUBJECT = 0.5
SUPERSEDES, CONFLICTS, COMPATIBLE = "supersedes", "conflicts", "compatible"

_WORD = re.compile(r"\w+(?:'\w+)?")
_NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "cannot",
        "can't",
        "don't",
        "dont",
        "doesn't",
        "doesnt",
        "isn't",
        "isnt",
        "aren't",
        "won't",
        "shouldn't",
        "mustn't",
        "avoid",
        "nunca",
        "jamás",
        "jamas",
        "evitar",
        "evita",
        "tampoco",
    }
)
_STOP_WORDS = frozenset(
    {
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "but",
        "its",
        "our",
        "your",
        "their",
        "los",
        "las",
        "del",
        "por",
        "para",
        "con",
        "una",
        "uno",
        "que",
        "como",
        "más",
        "mas",
        "pero",
        "sus",
        "este",
        "esta",
        "estos",
        "estas",
    }
)


@dataclass(frozen=True)
class Verdict:
    """How the memories ``first`` and ``second`` (ids, ascending) relate, and why."""

    first: int
    second: int
    relation: str
    reason: str
    #: the outdated one, when one supersedes the other
    outdated: int | None = None


def judge(memories: Sequence[Observation]) -> list[Verdict]:
    """A verdict for every pair of ``memories``, in the order of their ids."""
    ordered = sorted(memories, key=lambda memory: memory.id)
    return [_verdict(first, second) for first, second in combinations(ordered, 2)]


def _verdict(first: Observation, second: Observation) -> Verdict:
    ids = (first.id, second.id)
    topic = _shared_topic(first, second)
    if topic is not None:
        if first.normalized_hash == second.normalized_hash:
            return Verdict(*ids, COMPATIBLE, f"same topic {topic}, same content")
        newer, older = sorted((first, second), key=lambda m: (m.updated_at, m.id), reverse=True)
        reason = f"#{newer.id} supersedes #{older.id} (same topic {topic}); #{older.id} is outdated"
        return Verdict(*ids, SUPERSEDES, reason, outdated=older.id)
    (first_words, first_negates), (second_words, second_negates) = map(_words, (first, second))
    smaller = min(len(first_words), len(second_words))
    same_subject = smaller > 0 and len(first_words & second_words) >= SAME_SUBJECT * smaller
    if same_subject and first_negates != second_negates:
        return Verdict(*ids, CONFLICTS, "same subject, one negates what the other states")
    if same_subject:
        return Verdict(*ids, COMPATIBLE, "same subject, statements agree")
    return Verdict(*ids, COMPATIBLE, "different subjects")


def _shared_topic(first: Observation, second: Observation) -> str | None:
    if first.topic_key and first.topic_key == second.topic_key:
        return first.topic_key
    heads = {_title_head(m.title) for m in (first, second)}
    families = {type_family(m.type) or m.type.strip().lower() for m in (first, second)}
    if len(heads) == 1 and len(families) == 1 and "" not in heads:
        return f"{families.pop()}/{heads.pop()}"
    return None


def _title_head(title: str) -> str:
    return slug(title.partition(":")[0])


def _words(memory: Observation) -> tuple[frozenset[str], bool]:
    """The subject words of a memory, and whether it holds a negation."""
    words = set(_WORD.findall(f"{memory.title} {memory.content}".lower()))
    subject = {word for word in words if len(word) >= 3} - _STOP_WORDS - _NEGATIONS
    return frozenset(subject), bool(words & _NEGATIONS)
