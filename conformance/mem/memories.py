"""Readers of the answers about one memory: ``mem_save``, ``mem_get_observation``,
``mem_update``, ``mem_delete`` and ``mem_suggest_topic_key``.

Each takes the ``Unpacked`` answer of a successful call. The first line of a save or an update is
fixed (``Memory saved: "<title>" (<type>)``, the title quoted as Go's ``%q`` does); the lines
after it vary by version and are recognised one by one: the suggested topic key, the reference's
``ID: <n>``, the truncation warning, the pending conflict review and the reference's
``Candidate #<id> <judgment_id>: "<title>" (<type>)`` lines; any other line is kept as a note.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TypeVar

from .answer_text import Fields, Unpacked, quoted_line, whole_number
from .facts import Candidate, Deleted, Observation, Saved, Suggestion, Truncation, Updated

SUGGESTED = "Suggested topic_key: "
REFERENCE_ID = "ID: "
TRUNCATION = re.compile(r"⚠\ufe0f? WARNING: Content was truncated from (\d+) to (\d+) chars\b")
CONFLICT_PENDING = re.compile(r"CONFLICT REVIEW PENDING — (\d+) candidate")
CANDIDATE = re.compile(r"Candidate #(?P<id>\d+) (?P<judgment_id>[^\s:]+): ")
IN_PARENTHESES = re.compile(r" \((?P<type>.*)\)")
TYPE_AND_SCOPE = re.compile(r" \((?P<type>.*), scope=(?P<scope>[^)]*)\)")
OBSERVATION_HEADER = re.compile(r"#(?P<id>\d+) \[(?P<type>[^\]\n]*)\] ?(?P<title>.*)")
DELETED = re.compile(r"Memory #(?P<id>\d+) (?P<mode>soft-deleted|permanently deleted)")
#: A bare ``family/segment`` key, the form seed 003 shows for ``mem_suggest_topic_key``.
BARE_TOPIC_KEY = re.compile(r"[^\s/\"]+/[^\s\"]+")
#: ``mem_get_observation``'s metadata lines, read from the last one up, and whether each is
#: always there. Reading from the end keeps a content that has such lines in it out of the way.
OBSERVATION_TRAILER = (
    ("Created", True),
    ("Revisions", True),
    ("Duplicates", True),
    ("Tool", False),
    ("Topic", False),
    ("Scope", True),
    ("Project", False),
    ("Session", True),
)
#: A metadata line after ``Created:``: the reference's ``Updated:`` and ``Last seen:``, or what
#: a later version may add.
LATER_METADATA = re.compile(r"(?P<name>[A-Z][A-Za-z_ ]*): (?P<value>.*)")
T = TypeVar("T")


def read_save(unpacked: Unpacked) -> Saved:
    first, *others = unpacked.human_text().split("\n")
    title, rest = quoted_line(unpacked, first, "Memory saved: ", "title")
    typed = IN_PARENTHESES.fullmatch(rest)
    if typed is None:
        raise unpacked.unreadable(f"no '(<type>)' after the title in {first!r}")
    topic_key = text_id = truncation = pending = None
    notes: list[str] = []
    listed: list[Candidate] = []
    for line in others:
        if line.startswith(SUGGESTED):
            topic_key = once(unpacked, topic_key, topic_key_after(unpacked, line), "topic_key")
        elif line.startswith(REFERENCE_ID):
            found = whole_number(unpacked, line.removeprefix(REFERENCE_ID).strip(), "ID")
            text_id = once(unpacked, text_id, found, "ID")
        elif warned := TRUNCATION.match(line):
            truncation = truncation_of(warned)
        elif review := CONFLICT_PENDING.match(line):
            pending = int(review[1])
        elif named := CANDIDATE.match(line):
            listed.append(text_candidate(unpacked, line, named))
        elif line.strip():
            notes.append(line)
    if listed and pending != len(listed):
        raise unpacked.unreadable(f"{pending} candidates announced, {len(listed)} listed")
    saved = Saved(
        title=title,
        type=typed["type"],
        id=text_id,
        suggested_topic_key=topic_key,
        truncation=truncation,
        judgment_required=None if pending is None else True,
        judgment_id=listed[0].judgment_id if listed else None,
        candidates=tuple(listed),
        notes=tuple(notes),
        envelope=unpacked.envelope,
    )
    return saved if unpacked.fields is None else with_save_extras(unpacked, saved, pending)


def text_candidate(unpacked: Unpacked, line: str, named: re.Match[str]) -> Candidate:
    """A ``Candidate #<id> <judgment_id>: "<title>" (<type>)`` line (the reference's)."""
    title, rest = quoted_line(unpacked, line, named[0], "candidate title")
    typed = IN_PARENTHESES.fullmatch(rest)
    if typed is None:
        raise unpacked.unreadable(f"no '(<type>)' after the candidate title in {line!r}")
    return Candidate(
        id=int(named["id"]), title=title, type=typed["type"], judgment_id=named["judgment_id"]
    )


def with_save_extras(unpacked: Unpacked, saved: Saved, pending: int | None) -> Saved:
    """A v1.1x save: the id, sync id and conflict candidates from the JSON beside the text."""
    fields = unpacked.json()
    json_id = fields.optional_integer("id")
    if saved.id is not None and json_id is not None and saved.id != json_id:
        raise unpacked.unreadable(f"the text says ID {saved.id} and the JSON id {json_id}")
    candidates = tuple(candidate(entry) for entry in fields.objects("candidates"))
    if pending is not None and pending != len(candidates):
        raise unpacked.unreadable(f"{pending} candidates announced, {len(candidates)} listed")
    required = fields.optional_boolean("judgment_required")
    return replace(
        saved,
        id=saved.id if json_id is None else json_id,
        sync_id=fields.optional_string("sync_id"),
        state=fields.optional_string("state"),
        judgment_required=saved.judgment_required if required is None else required,
        judgment_id=fields.optional_string("judgment_id"),
        candidates=candidates,
    )


def candidate(entry: Fields) -> Candidate:
    return Candidate(
        id=entry.integer("id"),
        sync_id=entry.string("sync_id"),
        title=entry.string("title"),
        type=entry.string("type"),
        score=entry.number("score"),
        judgment_id=entry.string("judgment_id"),
        topic_key=entry.optional_string("topic_key"),
    )


def read_observation(unpacked: Unpacked) -> Observation:
    lines = unpacked.human_text().split("\n")
    header = OBSERVATION_HEADER.fullmatch(lines[0])
    if header is None:
        raise unpacked.unreadable(f"the first line {lines[0]!r} is not '#<id> [<type>] <title>'")
    index = len(lines) - 1
    later: dict[str, str] = {}
    while index > 0 and not lines[index].startswith("Created: "):
        named = LATER_METADATA.fullmatch(lines[index])
        if named is None:
            break
        later[named["name"]] = named["value"]
        index -= 1
    values: dict[str, str] = {}
    for key, required in OBSERVATION_TRAILER:
        if index > 0 and lines[index].startswith(f"{key}: "):
            values[key] = lines[index].removeprefix(f"{key}: ")
            index -= 1
        elif required:
            raise unpacked.unreadable(f"no '{key}:' line where the metadata should have it")
    return Observation(
        id=int(header["id"]),
        type=header["type"],
        title=header["title"],
        content="\n".join(lines[1 : index + 1]),
        session_id=values["Session"],
        scope=values["Scope"],
        duplicate_count=whole_number(unpacked, values["Duplicates"], "duplicate count"),
        revision_count=whole_number(unpacked, values["Revisions"], "revision count"),
        created_at=values["Created"],
        project=values.get("Project"),
        topic_key=values.get("Topic"),
        tool_name=values.get("Tool"),
        updated_at=later.get("Updated"),
        last_seen_at=later.get("Last seen"),
        envelope=unpacked.envelope,
    )


def read_update(unpacked: Unpacked) -> Updated:
    first, *others = unpacked.human_text().split("\n")
    numbered = re.match(r"Memory updated: #(\d+) ", first)
    if numbered is None:
        raise unpacked.unreadable(f"{first!r} does not begin with 'Memory updated: #<id> '")
    title, rest = quoted_line(unpacked, first, numbered[0], "title")
    typed = TYPE_AND_SCOPE.fullmatch(rest)
    if typed is None:
        raise unpacked.unreadable(f"no '(<type>, scope=<scope>)' after the title in {first!r}")
    warned = [truncation_of(match) for line in others if (match := TRUNCATION.match(line))]
    return Updated(
        id=int(numbered[1]),
        title=title,
        type=typed["type"],
        scope=typed["scope"],
        truncation=warned[0] if warned else None,
        envelope=unpacked.envelope,
    )


def truncation_of(warning: re.Match[str]) -> Truncation:
    return Truncation(original=int(warning[1]), kept=int(warning[2]))


def read_delete(unpacked: Unpacked) -> Deleted:
    first = unpacked.human_text().split("\n")[0]
    deleted = DELETED.fullmatch(first)
    if deleted is None:
        raise unpacked.unreadable(
            f"{first!r} is not 'Memory #<id> soft-deleted|permanently deleted'"
        )
    return Deleted(
        id=int(deleted["id"]),
        hard=deleted["mode"] == "permanently deleted",
        envelope=unpacked.envelope,
    )


def read_suggestion(unpacked: Unpacked) -> Suggestion:
    """Upstream's ``Suggested topic_key: <key>``, or the bare key seed 003 shows as the answer."""
    first = unpacked.human_text().strip().split("\n")[0]
    if first.startswith(SUGGESTED):
        key = topic_key_after(unpacked, first)
    elif BARE_TOPIC_KEY.fullmatch(first.strip('"')) and first.count('"') in (0, 2):
        key = first.strip('"')
    else:
        raise unpacked.unreadable(f"{first!r} is neither 'Suggested topic_key: <key>' nor a key")
    return Suggestion(topic_key=key, envelope=unpacked.envelope)


def topic_key_after(unpacked: Unpacked, line: str) -> str:
    key = line.removeprefix(SUGGESTED).strip()
    if not key or any(char.isspace() for char in key):
        raise unpacked.unreadable(f"{line!r} does not name one topic key")
    return key


def once(unpacked: Unpacked, earlier: T | None, value: T, what: str) -> T:
    """``value``, unless the answer already gave another one for the same field."""
    if earlier is not None and earlier != value:
        raise unpacked.unreadable(f"two different {what} lines: {earlier!r} and {value!r}")
    return value
