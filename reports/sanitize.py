"""Make untrusted text safe to print in any rendering.

A report holds what servers sent, and a server may send anything: NUL and other control
characters, lone surrogates, bidirectional overrides. None of those may break a rendered file
(XML 1.0 forbids most control characters even as character references; a lone surrogate cannot
be encoded as UTF-8) or disguise what it shows. ``scrub`` replaces each with a visible escape,
so the evidence stays readable; report.json keeps the exact text.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL and C1 controls, bidirectional embeddings, overrides and
# isolates, surrogates, and the two noncharacters XML 1.0 excludes.
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def scrub(text: str) -> str:
    r"""``text`` with every unprintable character written as ``\xNN`` or ``\uNNNN``."""
    return _UNPRINTABLE.sub(_escape, text)


def truncate(text: str, limit: int) -> str:
    """Evidence cut to ``limit`` characters, saying how many were left out and where they are."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters in report.json)"


def shorten(text: str, limit: int) -> str:
    """A one-line label of at most ``limit`` characters, cut at a word where it can be."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"
