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
   exhausted, refused, denied, warning, traceback, invalid, cannot, unable, in any case) are the
   learnings, at most ``MAX_PARAGRAPHS``; when none does, the first paragraph is.

Either way an item is cleaned (bold, italic and code markers removed, whitespace collapsed,
then redacted again, as a cleaned item may hold a ``<private>`` tag the text did not) and one
shorter than ``MIN_CHARS`` is dropped, so text of no substance yields none.

The cost is linear in the text: every line belongs to one section at most (sections that ran
on past a later heading written with a tab made it quadratic), and no pattern has two unbounded
parts that can trade characters.
"""

from __future__ import annotations

import re

from .text import one_line, redact

MIN_CHARS = 20
MAX_PARAGRAPHS = 5
TITLE_CHARS = 60

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
_MARKERS = re.compile(r"\*\*|__|`|\*")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_SIGNAL = re.compile(
    r"\b(?:errors?|exceptions?|fail(?:s|ed|ing|ure)?|fatal|panic(?:ked)?|crash(?:ed|es)?|"
    r"time[ -]?outs?|timed out|exhausted|refused|denied|warn(?:ing)?s?|traceback|invalid|"
    r"cannot|unable)\b",
    re.IGNORECASE,
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
    heading to the next line of ``_STRUCTURE``, so sections never overlap."""
    end = len(text)
    for mark in reversed(list(_STRUCTURE.finditer(text))):
        if mark.group("heading") is not None:
            start = mark.end()
            items = _NUMBERED.findall(text, start, end) or _BULLET.findall(text, start, end)
            if items and (kept := _substantial(items)):
                return kept
        end = mark.start()
    return []


def _from_paragraphs(text: str) -> list[str]:
    paragraphs = _substantial(_PARAGRAPH_BREAK.split(text))
    signalled = [paragraph for paragraph in paragraphs if _SIGNAL.search(paragraph)]
    return signalled[:MAX_PARAGRAPHS] if signalled else paragraphs[:1]


def _substantial(items: list[str]) -> list[str]:
    """The items cleaned, of ``MIN_CHARS`` at least. They are redacted again once cleaned: the
    text was redacted as it was read, but removing markers can make a tag (``<priv**ate>``)."""
    cleaned = (redact(one_line(_MARKERS.sub("", item))) for item in items)
    return [item for item in cleaned if len(item) >= MIN_CHARS]
