"""What ``mem_capture_passive`` extracts from free text: a list of learnings, deterministic.

1. **Under a learnings heading** (upstream's rule): a line of two or three ``#``, then ``Key
   Learning(s)``, ``Learning(s)``, ``Aprendizajes`` or ``Aprendizajes Clave``, an optional
   colon, any case. The section runs to the next heading of one to three ``#`` (a learnings
   heading included, whether a space or a tab follows its ``#``). Its numbered items (``1.``,
   ``1)``) are the learnings, else its bullets (``-``, ``*``). The last heading whose section
   has items wins.
2. **Otherwise** (the seed's own example is an error log with no heading, which upstream
   extracts nothing from): the text's paragraphs, split at blank lines, are the candidates; those
   that mention a failure signal (error, exception, fail, fatal, panic, crash, timeout,
   exhausted, refused, denied, warning, traceback, invalid, cannot, unable, in any case as
   ``str.lower`` reads it) within what a memory keeps of it (``CONTENT_CAP``) are the
   learnings, at most ``MAX_PARAGRAPHS``; when none does, the first paragraph is.

Either way an item is cleaned (bold, italic and code markers removed, whitespace collapsed,
then redacted again, as a cleaned item may hold a ``<private>`` tag the text did not) and one
shorter than ``MIN_CHARS`` is dropped, so text of no substance yields none.

The cost is linear in the text: every line belongs to one section at most (sections that ran
on past a later heading written with a tab made it quadratic), and no pattern has two unbounded
parts that can trade characters. Floods of what cannot be a learning (headings with nothing
under them, items or paragraphs too short) are skipped in C, without a Python step each, and
paragraphs after the last one needed are not read (benchmarks/bench_passive.py).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator

from .text import CONTENT_CAP, REDACTED, one_line, redact

MIN_CHARS = 20
MAX_PARAGRAPHS = 5
TITLE_CHARS = 60
#: The most cleaning can lengthen an item: an opening tag left unclosed (``<private>``, the
#: shortest) becomes ``[REDACTED]``; markers and blanks are only removed. An item shorter than
#: ``MIN_CHARS - _MOST_GROWTH`` is not cleaned at all: a flood of tiny items costs no call each.
_MOST_GROWTH = len(REDACTED) - len("<private>")

#: A line that ends a section (one to three ``#`` and a blank), or starts one: a learnings
#: heading, named ``heading``. Its blanks before and after the colon are possessive: a pattern
#: that can hand a run of blanks from one part to the other tries every split of a long run.
_STRUCTURE = re.compile(
    r"^(?:(?P<heading>#{2,3}[ \t]+"
    r"(?:key[ \t]+learnings?|learnings?|aprendizajes(?:[ \t]+clave)?)[ \t]*+:?[ \t]*+$)"
    r"|#{1,3}[ \t])",
    re.IGNORECASE | re.MULTILINE,
)
_NUMBERED = re.compile(r"^[ \t]*\d+[.)][ \t]+(.+)$", re.MULTILINE)
_BULLET = re.compile(r"^[ \t]*[-*][ \t]+(.+)$", re.MULTILINE)
#: A line of either kind of item that may hold a learning: cleaned, an item of ``c`` characters
#: other than blanks and markers is at most ``2c`` long (words and the spaces between them,
#: and ``_MOST_GROWTH``), so ``MIN_CHARS`` needs half as many. The others are never read.
_PROMISING = re.compile(
    rf"^[ \t]*(?:\d+[.)]|[-*])[ \t](?:[ \t*`]*+[^ \t*`\n]){{{MIN_CHARS // 2}}}", re.MULTILINE
)
_MARKERS = re.compile(r"\*\*|__|`|\*")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
#: Read on the paragraph in lower case (``str.lower``): matched with ``re.IGNORECASE``, every
#: character is folded as it is compared, three times slower over a long paragraph.
_SIGNAL = re.compile(
    r"\b(?:errors?|exceptions?|fail(?:s|ed|ing|ure)?|fatal|panic(?:ked)?|crash(?:ed|es)?|"
    r"time[ -]?outs?|timed out|exhausted|refused|denied|warn(?:ing)?s?|traceback|invalid|"
    r"cannot|unable)\b"
)


def learnings(text: str) -> list[str]:
    """The learnings of ``text``, in the order they appear."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _under_heading(text) or _from_paragraphs(text)


def title_of(learning: str) -> str:
    """A learning's title: its first ``TITLE_CHARS`` characters, ``...`` when cut."""
    return learning if len(learning) <= TITLE_CHARS else learning[:TITLE_CHARS] + "..."


def _under_heading(text: str) -> list[str]:
    """The items of the last learnings section that has some: each section runs from its
    heading to the next line of ``_STRUCTURE``, so sections never overlap. Only the sections
    that hold a ``_PROMISING`` line are read, found from those lines back: a flood of headings
    with nothing under them, or tiny items, costs no call each."""
    items = list(_PROMISING.finditer(text))
    marks = list(_STRUCTURE.finditer(text)) if items else []
    unread = len(items)  # the lines not yet read: those before items[unread]
    while unread:
        line = items[unread - 1].start()
        holder = bisect_right(marks, line, key=re.Match.start) - 1  # the mark of its section
        if holder < 0:
            break  # the lines left come before any section
        mark = marks[holder]
        if mark.group("heading") is not None:
            start = mark.end()
            end = marks[holder + 1].start() if holder + 1 < len(marks) else len(text)
            found = _NUMBERED.findall(text, start, end) or _BULLET.findall(text, start, end)
            if found and (kept := list(_substantial(found))):
                return kept
        unread = bisect_left(items, mark.start(), key=re.Match.start)
    return []


def _from_paragraphs(text: str) -> list[str]:
    """The first ``MAX_PARAGRAPHS`` substantial paragraphs that report a failure, else the first
    substantial one; paragraphs after the last one needed are not cleaned."""
    first: list[str] = []
    signalled: list[str] = []
    for kept in _substantial(_PARAGRAPH_BREAK.split(text)):
        first = first or [kept]
        if _SIGNAL.search(kept[:CONTENT_CAP].lower()):
            signalled.append(kept)
            if len(signalled) == MAX_PARAGRAPHS:
                break
    return signalled or first


def _substantial(items: list[str]) -> Iterator[str]:
    """The items cleaned, of ``MIN_CHARS`` at least, one by one as they are read. They are
    redacted again once cleaned: the text was redacted as it was read, but removing markers can
    make a tag (``<priv**ate>``)."""
    shortest = MIN_CHARS - _MOST_GROWTH
    cleaned = (redact(one_line(_MARKERS.sub("", item))) for item in items if len(item) >= shortest)
    return (item for item in cleaned if len(item) >= MIN_CHARS)
