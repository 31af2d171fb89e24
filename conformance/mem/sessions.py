"""Readers of the session tools' answers and the store's counts: ``mem_session_start``,
``mem_session_end``, ``mem_session_summary``, ``mem_save_prompt``, ``mem_capture_passive`` and
``mem_stats``. One fixed first line each, with Go-quoted ids and names; later lines (v1.1x's
activity score) are notes.
"""

from __future__ import annotations

import re

from .answer_text import Unpacked, quoted_line, whole_number
from .facts import PassiveCapture, PromptSaved, SessionEnded, SessionStarted, Stats, SummarySaved

PASSIVE = re.compile(r"Passive capture complete: extracted=(\d+) saved=(\d+) duplicates=(\d+)")
STATS_HEADING = "Memory System Stats:"
STAT_LINE = re.compile(r"- (?P<name>[A-Za-z ]+): (?P<value>.*)")
NO_PROJECTS = "none yet"


def first_line(unpacked: Unpacked) -> tuple[str, list[str]]:
    first, *others = unpacked.human_text().split("\n")
    return first, others


def read_session_start(unpacked: Unpacked) -> SessionStarted:
    first, _ = first_line(unpacked)
    session_id, rest = quoted_line(unpacked, first, "Session ", "session id")
    project, rest = quoted_line(unpacked, rest, " started for project ", "project")
    if rest:
        raise unpacked.unreadable(f"{rest!r} follows the project in {first!r}")
    return SessionStarted(id=session_id, project=project, envelope=unpacked.envelope)


def read_session_end(unpacked: Unpacked) -> SessionEnded:
    first, _ = first_line(unpacked)
    session_id, rest = quoted_line(unpacked, first, "Session ", "session id")
    if rest != " completed":
        raise unpacked.unreadable(f"{first!r} is not 'Session \"<id>\" completed'")
    return SessionEnded(id=session_id, envelope=unpacked.envelope)


def read_session_summary(unpacked: Unpacked) -> SummarySaved:
    first, others = first_line(unpacked)
    project, rest = quoted_line(unpacked, first, "Session summary saved for project ", "project")
    if rest:
        raise unpacked.unreadable(f"{rest!r} follows the project in {first!r}")
    notes = tuple(line for line in others if line.strip())
    return SummarySaved(project=project, notes=notes, envelope=unpacked.envelope)


def read_prompt(unpacked: Unpacked) -> PromptSaved:
    first, _ = first_line(unpacked)
    preview, rest = quoted_line(unpacked, first, "Prompt saved: ", "prompt")
    if rest:
        raise unpacked.unreadable(f"{rest!r} follows the prompt in {first!r}")
    return PromptSaved(preview=preview, envelope=unpacked.envelope)


def read_passive_capture(unpacked: Unpacked) -> PassiveCapture:
    first, _ = first_line(unpacked)
    counted = PASSIVE.fullmatch(first)
    if counted is None:
        raise unpacked.unreadable(
            f"{first!r} is not 'Passive capture complete: extracted=N saved=N duplicates=N'"
        )
    extracted, saved, duplicates = (int(count) for count in counted.groups())
    return PassiveCapture(
        extracted=extracted, saved=saved, duplicates=duplicates, envelope=unpacked.envelope
    )


def read_stats(unpacked: Unpacked) -> Stats:
    """The ``- Name: value`` lines under the heading; lines of other names are let pass."""
    first, others = first_line(unpacked)
    if first != STATS_HEADING:
        raise unpacked.unreadable(f"the first line {first!r} is not {STATS_HEADING!r}")
    values = {m["name"]: m["value"] for line in others if (m := STAT_LINE.fullmatch(line))}
    missing = [
        name for name in ("Sessions", "Observations", "Prompts", "Projects") if name not in values
    ]
    if missing:
        raise unpacked.unreadable(f"no '- {missing[0]}: …' line")
    projects = values["Projects"]
    return Stats(
        sessions=whole_number(unpacked, values["Sessions"], "session count"),
        observations=whole_number(unpacked, values["Observations"], "observation count"),
        prompts=whole_number(unpacked, values["Prompts"], "prompt count"),
        projects=() if projects == NO_PROJECTS else tuple(projects.split(", ")),
        envelope=unpacked.envelope,
    )
