"""Readers of the answers of the tools v1.1x added to curate the store: ``mem_current_project``,
``mem_judge``, ``mem_compare``, ``mem_pin``/``mem_unpin``, ``mem_review``, ``mem_doctor``,
``mem_merge_projects`` and ``mem_list_projects``.

Most answer a JSON object of their own (no ``"result"`` text): their facts are its keys.
``mem_merge_projects`` answers plain text, one count per line.
"""

from __future__ import annotations

import re

from .answer_text import Unpacked, quoted_line, whole_number
from .facts import (
    Compared,
    CurrentProject,
    Diagnosis,
    DiagnosticCheck,
    JudgedMemories,
    Judgement,
    JudgmentRecorded,
    ListedProject,
    MemoryVerdict,
    Merged,
    PairVerdict,
    Pinned,
    ProjectList,
    Reviewed,
    ReviewItem,
    ReviewList,
)

JUDGED = re.compile(r"Judged (\d+) memories \((\d+) pairs\):")
MEMORY_VERDICT = re.compile(r"#(\d+): (contradictory|complementary|outdated|unrelated)")
PAIR_VERDICT = re.compile(r"#(\d+) #(\d+): (\S+) — (.*)")
RECORDED = "Judgment "
RECORDED_RELATION = re.compile(r" recorded: #(\d+) (\S+) #(\d+)")
REVIEW_NONE = "No memories need review."
REVIEW_FOUND = re.compile(r"Found (\d+) memories needing review:")
MARKED = re.compile(r"Memory marked reviewed: #(\d+) ")
TYPE_IN_PARENTHESES = re.compile(r" \((?P<type>.*)\)")
MERGED = re.compile(r"Merged (\d+) source\(s\) into ")
MOVED = re.compile(r"\s*(?P<what>Observations|Sessions|Prompts) moved:\s*(?P<count>\S+)")


def read_current_project(unpacked: Unpacked) -> CurrentProject:
    fields = unpacked.json()
    return CurrentProject(
        project=fields.string("project"),
        source=fields.string("project_source"),
        path=fields.string("project_path"),
        cwd=fields.string("cwd"),
        available_projects=fields.strings("available_projects"),
        warning=fields.optional_string("warning"),
        error_hint=fields.optional_string("error_hint"),
        envelope=unpacked.envelope,
    )


def read_judge(unpacked: Unpacked) -> Judgement | JudgedMemories | JudgmentRecorded:
    """Upstream's JSON ``{"relation": {…}}``; or the reference's: the seed's verdicts
    (``Judged N memories (M pairs):``, a ``#<id>: <verdict>`` line per memory, then a
    ``#a #b: <relation> — <reason>`` line per pair), or a recorded verdict
    (``Judgment "<judgment_id>" recorded: #<source> <relation> #<target>``)."""
    if unpacked.fields is None and unpacked.human_text().startswith(RECORDED):
        return read_recorded(unpacked)
    if unpacked.fields is None:
        return read_verdicts(unpacked)
    relation = unpacked.json().object("relation")
    return Judgement(
        relation_id=relation.integer("id"),
        sync_id=relation.string("sync_id"),
        source_id=relation.string("source_id"),
        target_id=relation.string("target_id"),
        relation=relation.string("relation"),
        judgment_status=relation.string("judgment_status"),
        reason=relation.optional_string("reason"),
        evidence=relation.optional_string("evidence"),
        confidence=relation.optional_number("confidence"),
        session_id=relation.optional_string("session_id"),
        envelope=unpacked.envelope,
    )


def read_verdicts(unpacked: Unpacked) -> JudgedMemories:
    first, *others = unpacked.human_text().split("\n")
    judged = JUDGED.fullmatch(first)
    if judged is None:
        raise unpacked.unreadable(f"{first!r} is neither JSON nor 'Judged N memories (M pairs):'")
    memories, pairs = int(judged[1]), int(judged[2])
    if len(others) != memories + pairs:
        raise unpacked.unreadable(f"not {memories} verdict lines then {pairs} pair lines")
    verdicts = []
    for line in others[:memories]:
        verdict = MEMORY_VERDICT.fullmatch(line)
        if verdict is None:
            raise unpacked.unreadable(f"{line!r} is not '#<id>: <verdict>'")
        verdicts.append(MemoryVerdict(id=int(verdict[1]), verdict=verdict[2]))
    relations = []
    for line in others[memories:]:
        relation = PAIR_VERDICT.fullmatch(line)
        if relation is None:
            raise unpacked.unreadable(f"{line!r} is not '#<id> #<id>: <relation> — <reason>'")
        first_id, second_id, word, reason = relation.groups()
        relations.append(
            PairVerdict(first=int(first_id), second=int(second_id), relation=word, reason=reason)
        )
    return JudgedMemories(
        verdicts=tuple(verdicts), pairs=tuple(relations), envelope=unpacked.envelope
    )


def read_recorded(unpacked: Unpacked) -> JudgmentRecorded:
    text = unpacked.human_text()
    judgment_id, rest = quoted_line(unpacked, text, RECORDED, "judgment id")
    recorded = RECORDED_RELATION.fullmatch(rest)
    if recorded is None:
        raise unpacked.unreadable(f"{rest!r} is not ' recorded: #<id> <relation> #<id>'")
    return JudgmentRecorded(
        judgment_id=judgment_id,
        source=int(recorded[1]),
        relation=recorded[2],
        target=int(recorded[3]),
        envelope=unpacked.envelope,
    )


def read_comparison(unpacked: Unpacked) -> Compared:
    return Compared(sync_id=unpacked.json().string("sync_id"), envelope=unpacked.envelope)


def read_pin(unpacked: Unpacked) -> Pinned:
    fields = unpacked.json()
    return Pinned(
        id=fields.integer("id"),
        sync_id=fields.string("sync_id"),
        pinned=fields.boolean("pinned"),
        envelope=unpacked.envelope,
    )


def read_review(unpacked: Unpacked) -> ReviewList | Reviewed:
    """``action: list`` answers a list (its items in ``observations[]``), ``mark_reviewed`` one
    memory; the first line tells which."""
    fields = unpacked.json()
    first = unpacked.human_text().split("\n")[0]
    if marked := MARKED.match(first):
        title, rest = quoted_line(unpacked, first, marked[0], "title")
        typed = TYPE_IN_PARENTHESES.fullmatch(rest)
        if typed is None:
            raise unpacked.unreadable(f"no '(<type>)' after the title in {first!r}")
        return Reviewed(
            id=int(marked[1]),
            title=title,
            type=typed["type"],
            sync_id=fields.optional_string("sync_id"),
            state=fields.optional_string("state"),
            envelope=unpacked.envelope,
        )
    found = REVIEW_FOUND.fullmatch(first)
    if first != REVIEW_NONE and found is None:
        raise unpacked.unreadable(f"{first!r} is neither a review list nor a marked memory")
    items = tuple(
        ReviewItem(
            id=entry.integer("id"),
            sync_id=entry.string("sync_id"),
            title=entry.string("title"),
            type=entry.string("type"),
            state=entry.string("state"),
            project=entry.optional_string("project"),
            review_after=entry.optional_string("review_after"),
        )
        for entry in fields.objects("observations")
    )
    if len(items) != (int(found[1]) if found else 0):
        raise unpacked.unreadable(f"{first!r} but {len(items)} items in observations[]")
    return ReviewList(items=items, envelope=unpacked.envelope)


def read_diagnosis(unpacked: Unpacked) -> Diagnosis:
    fields = unpacked.json()
    checks = tuple(
        DiagnosticCheck(
            check_id=entry.string("check_id"),
            result=entry.string("result"),
            message=entry.string("message"),
        )
        for entry in fields.objects("checks")
    )
    return Diagnosis(status=fields.string("status"), checks=checks, envelope=unpacked.envelope)


def read_merge(unpacked: Unpacked) -> Merged:
    first, *others = unpacked.human_text().split("\n")
    merged = MERGED.match(first)
    if merged is None:
        raise unpacked.unreadable(f"{first!r} is not 'Merged N source(s) into \"<project>\":'")
    canonical, rest = quoted_line(unpacked, first, merged[0], "project")
    if rest != ":":
        raise unpacked.unreadable(f"{rest!r} follows the project in {first!r}")
    moved = {m["what"]: m["count"] for line in others if (m := MOVED.fullmatch(line))}
    counts = {}
    for what in ("Observations", "Sessions", "Prompts"):
        if what not in moved:
            raise unpacked.unreadable(f"no '{what} moved: N' line")
        counts[what] = whole_number(unpacked, moved[what], f"count of {what.lower()} moved")
    return Merged(
        canonical=canonical,
        sources=int(merged[1]),
        observations=counts["Observations"],
        sessions=counts["Sessions"],
        prompts=counts["Prompts"],
        envelope=unpacked.envelope,
    )


def read_project_list(unpacked: Unpacked) -> ProjectList:
    fields = unpacked.json()
    projects = tuple(
        ListedProject(
            name=entry.string("name"),
            observation_count=entry.integer("observation_count"),
            session_count=entry.integer("session_count"),
            prompt_count=entry.integer("prompt_count"),
            directories=entry.strings("directories"),
        )
        for entry in fields.objects("projects")
    )
    count = fields.optional_integer("count")
    if count is not None and count != len(projects):
        raise unpacked.unreadable(f"count {count} but {len(projects)} projects listed")
    return ProjectList(projects=projects, envelope=unpacked.envelope)
