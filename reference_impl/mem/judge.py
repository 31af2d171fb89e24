"""``mem_judge`` of a list of memories (seed 003: which are contradictory, which
complementary, which outdated), by a deterministic rule: the same memories in the same state
get the same verdicts.

First each pair is related, in this order:

1. **Same topic** — both carry the same topic key, or their types are of one family and their
   titles the same head (the slug of the title before its first ``:``, so "Auth middleware: JWT
   validation" and "Auth middleware: session tokens" share ``auth-middleware``): the same
   content is ``compatible``; otherwise the more recently updated one ``supersedes`` the other,
   which is outdated (the topic evolved: the older one is what the newer one replaces).
2. **Same subject** — the sets of their subject words (title and content, three letters or
   more, stop words and negations left out) overlap by at least ``SAME_SUBJECT`` of the smaller
   set: ``conflicts`` when exactly one of them holds a negation ("not", "never", "avoid",
   "no", "nunca"...), else ``compatible``.
3. Otherwise ``unrelated``.

Then each memory gets one verdict, the first that holds: ``outdated`` (another of them
supersedes it), ``contradictory`` (it conflicts with another), ``complementary`` (it is on the
topic or subject of another: compatible, or the newer of a supersedes pair), else
``unrelated``.
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
SUPERSEDES, CONFLICTS, COMPATIBLE, UNRELATED = "supersedes", "conflicts", "compatible", "unrelated"
OUTDATED, CONTRADICTORY, COMPLEMENTARY = "outdated", "contradictory", "complementary"
#: the verdict words, in the order of precedence
VERDICTS = (OUTDATED, CONTRADICTORY, COMPLEMENTARY, UNRELATED)

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
class PairVerdict:
    """How the memories ``first`` and ``second`` (ids, ascending) relate, and why."""

    first: int
    second: int
    relation: str
    reason: str
    #: the outdated one, when one supersedes the other
    outdated: int | None = None


@dataclass(frozen=True)
class Judged:
    """The verdict of each memory (by id, ascending) and the pair relations it rests on."""

    verdicts: dict[int, str]
    pairs: list[PairVerdict]


def judge(memories: Sequence[Observation]) -> Judged:
    """The verdicts on ``memories`` (two or more), in the order of their ids."""
    ordered = sorted(memories, key=lambda memory: memory.id)
    pairs = [_pair(first, second) for first, second in combinations(ordered, 2)]
    found: dict[int, set[str]] = {memory.id: set() for memory in ordered}
    for pair in pairs:
        for memory_id in (pair.first, pair.second):
            found[memory_id].add(_verdict_in(pair, memory_id))
    verdicts = {
        memory_id: next(word for word in VERDICTS if word in words)
        for memory_id, words in found.items()
    }
    return Judged(verdicts, pairs)


def subject_words(text: str) -> frozenset[str]:
    """The words of ``text`` that say what it is about: lowercased, three letters or more,
    stop words and negations left out."""
    words = set(_WORD.findall(text.lower()))
    return frozenset(word for word in words if len(word) >= 3) - _STOP_WORDS - _NEGATIONS


def _verdict_in(pair: PairVerdict, memory_id: int) -> str:
    """What ``pair`` says of one of its two memories."""
    if pair.relation == SUPERSEDES:
        return OUTDATED if pair.outdated == memory_id else COMPLEMENTARY
    return {CONFLICTS: CONTRADICTORY, COMPATIBLE: COMPLEMENTARY}.get(pair.relation, UNRELATED)


def _pair(first: Observation, second: Observation) -> PairVerdict:
    ids = (first.id, second.id)
    topic = _shared_topic(first, second)
    if topic is not None:
        if first.normalized_hash == second.normalized_hash:
            return PairVerdict(*ids, COMPATIBLE, f"same topic {topic}, same content")
        newer, older = sorted((first, second), key=lambda m: (m.updated_at, m.id), reverse=True)
        reason = f"#{newer.id} supersedes #{older.id} (same topic {topic}); #{older.id} is outdated"
        return PairVerdict(*ids, SUPERSEDES, reason, outdated=older.id)
    first_words, second_words = (subject_words(f"{m.title} {m.content}") for m in (first, second))
    smaller = min(len(first_words), len(second_words))
    if smaller == 0 or len(first_words & second_words) < SAME_SUBJECT * smaller:
        return PairVerdict(*ids, UNRELATED, "different subjects")
    if _negates(first) != _negates(second):
        return PairVerdict(*ids, CONFLICTS, "same subject, one negates what the other states")
    return PairVerdict(*ids, COMPATIBLE, "same subject, statements agree")


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


def _negates(memory: Observation) -> bool:
    return bool(set(_WORD.findall(f"{memory.title} {memory.content}".lower())) & _NEGATIONS)
