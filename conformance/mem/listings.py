"""Readers of the answers that list memories: ``mem_search``, ``mem_context``, ``mem_timeline``.

Their texts interleave fixed lines with the memories' own text (titles, content previews), which
may hold anything, line breaks included. So each reader anchors on the fixed lines (a hit's header
and its ``<created> | project: … | scope: …`` line, a context's ``###`` headings and footer, a
timeline's ``>>>`` focus and ``───`` rulers) and takes what lies between as the memory's text.
Where v1.1x gives the hits as JSON (``results[]``) those are the facts, and the text must list the
same memories in the same order.
"""

from __future__ import annotations

import re

from .answer_text import Fields, Unpacked, quoted_line, whole_number
from .facts import (
    Annotation,
    Context,
    ContextObservation,
    ContextPrompt,
    ContextSession,
    ContextTotals,
    Hit,
    LatestSummary,
    SearchResult,
    Timeline,
    TimelineEntry,
    TimelineFocus,
    TimelineSession,
)

INDENT = "    "
NONE_FOUND = "No memories found for: "
FOUND = re.compile(r"Found (\d+) memories:")
HIT_HEADER = re.compile(r"\[(?P<number>\d+)\] #(?P<id>\d+) \((?P<type>.*?)\) — (?P<title>.*)")
HIT_META = re.compile(
    r"    (?P<created>[^|]*?)(?: \| project: (?P<project>.*?))? \| scope: (?P<scope>[^ |]*)"
    r"(?: \| .*)?"
)
PREVIEW_MARKER = " [preview]"
JUDGED = re.compile(
    r"    (?P<kind>supersedes|superseded_by|conflicts): #(?P<id>\d+) \((?P<title>.*)\)"
)
CONTESTED = re.compile(r"    conflict: contested by #(?P<sync_id>\S+) \(pending\)")

EMPTY_CONTEXT = "No previous session memories found."
CONTEXT_HEADING = "## Memory from Previous Sessions"
#: The reference's last line of a context cut to its byte budget.
CONTEXT_TRUNCATED = "\n[truncated]"
TOTALS = re.compile(r"Memory stats: (\d+) sessions, (\d+) observations across projects: (.*)")
SESSION_ITEM = re.compile(
    r"- \*\*(?P<project>.*?)\*\* \((?P<started>[^()\n]*)\)(?:: (?P<summary>.*))?"
    r" \[(?P<count>\d+) observations\]",
    re.DOTALL,
)
PROMPT_ITEM = re.compile(
    r"- (?P<created>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d\S*): ?(?P<content>.*)", re.DOTALL
)
OBSERVATION_ITEM = re.compile(
    r"- \[(?P<type>[^\]\n]*)\] \*\*(?P<title>.*?)\*\*: ?(?P<content>.*)", re.DOTALL
)
#: Each listing section of a context: its heading, how its items begin, what a whole item is.
SECTIONS = {
    "### Recent Sessions": (re.compile(r"- \*\*"), SESSION_ITEM),
    "### Recent User Prompts": (re.compile(r"- \d{4}-\d\d-\d\d"), PROMPT_ITEM),
    "### Pinned": (re.compile(r"- \["), OBSERVATION_ITEM),
    "### Recent Observations": (re.compile(r"- \["), OBSERVATION_ITEM),
}
LATEST_SUMMARY = "### Latest Session Summary"
SUMMARY_HEADING = re.compile(r"\*\*(?P<title>.*)\*\* \((?P<updated>[^()\n]*)\)")

TIMELINE_SESSION = re.compile(
    r"Session: (?P<project>.*?) \((?P<started>[^()\n]*)\)(?: — (?P<summary>.*))?", re.DOTALL
)
TIMELINE_TOTAL = re.compile(r"Total observations in session: (\d+)")
FOCUS = re.compile(r">>> #(?P<id>\d+) \[(?P<type>[^\]\n]*)\] (?P<title>.*) <<<")
NEIGHBOUR_START = re.compile(r"  #\d+ \[")
NEIGHBOUR = re.compile(
    r"  #(?P<id>\d+) \[(?P<type>[^\]\n]*)\] (?P<title>.*?) — (?P<preview>.*)", re.DOTALL
)
BEFORE, AFTER = "─── Before ───", "─── After ───"


# mem_search -----------------------------------------------------------------------------------
def read_search(unpacked: Unpacked) -> SearchResult:
    lines = unpacked.human_text().split("\n")
    listed = unpacked.fields.objects("results") if unpacked.fields is not None else None
    if lines[0].startswith(NONE_FOUND):
        query, rest = quoted_line(unpacked, lines[0], NONE_FOUND, "query")
        if rest.strip() or listed:
            raise unpacked.unreadable("an answer that found no memories lists some")
        return SearchResult(none_found=True, query=query, envelope=unpacked.envelope)
    found = FOUND.fullmatch(lines[0])
    if found is None:
        raise unpacked.unreadable(
            f"the first line {lines[0]!r} is neither 'Found N memories:' nor {NONE_FOUND!r}"
        )
    count = int(found[1])
    if listed is not None and len(listed) != count:
        raise unpacked.unreadable(f"{count} memories announced, {len(listed)} in results[]")
    hits, index = [], 1
    for number in range(1, count + 1):
        while index < len(lines) and not lines[index].strip():
            index += 1
        entry = listed[number - 1] if listed is not None else None
        hit, index = read_hit(unpacked, lines, index, number, entry)
        hits.append(hit)
    return SearchResult(hits=tuple(hits), none_found=not hits, envelope=unpacked.envelope)


def read_hit(
    unpacked: Unpacked, lines: list[str], index: int, number: int, listed: Fields | None
) -> tuple[Hit, int]:
    """Hit ``number``, whose header is at ``lines[index]``, and the index after its block."""
    if listed is not None:
        known = listed.integer("id"), listed.string("type"), listed.string("title")
        header = f"[{number}] #{known[0]} ({known[1]}) — {known[2]}".split("\n")
        if lines[index : index + len(header)] != header:
            raise unpacked.unreadable(f"results[{number - 1}] is not hit {number} of the text")
        index += len(header)
    else:
        matched = HIT_HEADER.fullmatch(lines[index]) if index < len(lines) else None
        if matched is None or int(matched["number"]) != number:
            raise unpacked.unreadable(
                f"no '[{number}] #<id> (<type>) — <title>' line for hit {number}"
            )
        known = int(matched["id"]), matched["type"], matched["title"]
        index += 1
    if index >= len(lines) or not lines[index].startswith(INDENT):
        raise unpacked.unreadable(f"hit {number} has no indented content preview")
    preview_at, index = index, index + 1
    meta = None
    while index < len(lines) and (meta := HIT_META.fullmatch(lines[index])) is None:
        index += 1
    if meta is None:
        raise unpacked.unreadable(f"hit {number} has no '<created> | scope: <scope>' line")
    preview = "\n".join(lines[preview_at:index]).removeprefix(INDENT).removesuffix(PREVIEW_MARKER)
    index += 1
    annotations = []
    while index < len(lines) and lines[index].strip():
        if (annotated := annotation(lines[index])) is not None:
            annotations.append(annotated)
        index += 1
    hit = Hit(
        id=known[0],
        type=known[1],
        title=known[2],
        scope=listed.string("scope") if listed is not None else meta["scope"],
        created_at=meta["created"],
        preview=preview,
        project=listed.optional_string("project") if listed is not None else meta["project"],
        sync_id=listed.optional_string("sync_id") if listed is not None else None,
        state=listed.optional_string("state") if listed is not None else None,
        pinned=listed.optional_boolean("pinned") if listed is not None else None,
        annotations=tuple(annotations),
    )
    return hit, index


def annotation(line: str) -> Annotation | None:
    """A relation line under a hit, or ``None`` for an indented line of another kind."""
    if judged := JUDGED.fullmatch(line):
        title = judged["title"]
        return Annotation(kind=judged["kind"], other_id=int(judged["id"]), other_title=title)
    if contested := CONTESTED.fullmatch(line):
        return Annotation(kind="contested", other_sync_id=contested["sync_id"])
    return None


# mem_context ----------------------------------------------------------------------------------
def read_context(unpacked: Unpacked) -> Context:
    text = unpacked.human_text()
    if text.startswith(EMPTY_CONTEXT):
        return Context(empty=True, envelope=unpacked.envelope)
    truncated = text.endswith(CONTEXT_TRUNCATED)
    lines = text.removesuffix(CONTEXT_TRUNCATED).split("\n")
    if lines[0] != CONTEXT_HEADING:
        raise unpacked.unreadable(f"the first line {lines[0]!r} is not {CONTEXT_HEADING!r}")
    end, totals = len(lines), None
    for index in range(len(lines) - 1, 0, -1):
        if (counted := TOTALS.fullmatch(lines[index])) and lines[index - 1] == "---":
            end, projects = index - 1, counted[3]
            totals = ContextTotals(
                sessions=int(counted[1]),
                observations=int(counted[2]),
                projects=() if projects == "none" else tuple(projects.split(", ")),
            )
            break
    blocks = context_blocks(lines[1:end])

    def items(heading: str) -> list[re.Match[str]]:
        begins, whole = SECTIONS[heading]
        return section_items(unpacked, heading, blocks.get(heading, []), begins, whole)

    return Context(
        truncated=truncated,
        latest_summary=latest_summary(unpacked, blocks.get(LATEST_SUMMARY)),
        sessions=tuple(
            ContextSession(
                project=item["project"],
                started_at=item["started"],
                observation_count=int(item["count"]),
                summary=item["summary"],
            )
            for item in items("### Recent Sessions")
        ),
        prompts=tuple(
            ContextPrompt(created_at=item["created"], content=item["content"])
            for item in items("### Recent User Prompts")
        ),
        pinned=observation_items(items("### Pinned")),
        observations=observation_items(items("### Recent Observations")),
        totals=totals,
        envelope=unpacked.envelope,
    )


def context_blocks(lines: list[str]) -> dict[str, list[str]]:
    """The lines of each section, by heading. A section begins at a ``###`` line after a blank
    line; sections of names no reader knows (a later version's) are kept and let pass."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for index, line in enumerate(lines):
        if line.startswith("### ") and (index == 0 or not lines[index - 1].strip()):
            current = blocks.setdefault(line, [])
        elif current is not None:
            current.append(line)
    return blocks


def latest_summary(unpacked: Unpacked, lines: list[str] | None) -> LatestSummary | None:
    """The reference's summary section: a ``**<title>** (<updated>)`` line, then the content."""
    if lines is None:
        return None
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    heading = SUMMARY_HEADING.fullmatch(lines[0]) if lines else None
    if heading is None:
        raise unpacked.unreadable(f"{LATEST_SUMMARY} has no '**<title>** (<updated>)' line")
    return LatestSummary(
        title=heading["title"], updated_at=heading["updated"], content="\n".join(lines[1:])
    )


def section_items(
    unpacked: Unpacked,
    heading: str,
    lines: list[str],
    begins: re.Pattern[str],
    whole: re.Pattern[str],
) -> list[re.Match[str]]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    grouped: list[list[str]] = []
    for line in lines:
        if begins.match(line):
            grouped.append([line])
        elif grouped:
            grouped[-1].append(line)
        else:
            raise unpacked.unreadable(f"{heading}: {line!r} does not begin an item")
    matches = []
    for group in grouped:
        matched = whole.fullmatch("\n".join(group))
        if matched is None:
            raise unpacked.unreadable(f"{heading}: {group[0]!r} is not an item of that section")
        matches.append(matched)
    return matches


def observation_items(items: list[re.Match[str]]) -> tuple[ContextObservation, ...]:
    return tuple(
        ContextObservation(type=item["type"], title=item["title"], content=item["content"])
        for item in items
    )


# mem_timeline ---------------------------------------------------------------------------------
def read_timeline(unpacked: Unpacked) -> Timeline:
    lines = unpacked.human_text().split("\n")
    index, session = 0, None
    if lines[0].startswith("Session: "):
        total_at = next((i for i, line in enumerate(lines) if TIMELINE_TOTAL.fullmatch(line)), None)
        header = TIMELINE_SESSION.fullmatch("\n".join(lines[:total_at])) if total_at else None
        if total_at is None or header is None:
            raise unpacked.unreadable("the 'Session: <project> (<started>)' header is not whole")
        session = TimelineSession(
            project=header["project"],
            started_at=header["started"],
            total_observations=whole_number(unpacked, lines[total_at].rsplit(" ", 1)[1], "total"),
            summary=header["summary"],
        )
        index = total_at + 1
    focus_at = next((i for i in range(index, len(lines)) if FOCUS.fullmatch(lines[i])), None)
    if focus_at is None:
        raise unpacked.unreadable("no '>>> #<id> [<type>] <title> <<<' line")
    before_lines = lines[index:focus_at]
    before = before_lines[before_lines.index(BEFORE) + 1 :] if BEFORE in before_lines else []
    after_at = next((i for i in range(focus_at, len(lines)) if lines[i] == AFTER), len(lines))
    return Timeline(
        focus=timeline_focus(unpacked, lines[focus_at], lines[focus_at + 1 : after_at]),
        before=neighbours(unpacked, before),
        after=neighbours(unpacked, lines[after_at + 1 :]),
        session=session,
        envelope=unpacked.envelope,
    )


def timeline_focus(unpacked: Unpacked, header_line: str, body: list[str]) -> TimelineFocus:
    """The focus: its header, then its indented content and, last, its creation time."""
    header = FOCUS.fullmatch(header_line)
    assert header is not None  # the caller found the line by this pattern
    while body and not body[-1].strip():
        body = body[:-1]
    if len(body) < 2 or not body[0].startswith(INDENT) or not body[-1].startswith(INDENT):
        raise unpacked.unreadable("the focus has no indented content and creation time")
    return TimelineFocus(
        id=int(header["id"]),
        type=header["type"],
        title=header["title"],
        content="\n".join(body[:-1]).removeprefix(INDENT),
        created_at=body[-1].removeprefix(INDENT),
    )


def neighbours(unpacked: Unpacked, lines: list[str]) -> tuple[TimelineEntry, ...]:
    items = section_items(unpacked, "timeline", lines, NEIGHBOUR_START, NEIGHBOUR)
    return tuple(
        TimelineEntry(
            id=int(item["id"]), type=item["type"], title=item["title"], preview=item["preview"]
        )
        for item in items
    )
