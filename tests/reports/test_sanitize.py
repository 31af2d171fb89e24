"""Untrusted text made printable, evidence truncated, labels shortened."""

from __future__ import annotations

import pytest
from engram_conformance.reports.sanitize import scrub, shorten, truncate


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain ñ 日本語 \U0001f600", "plain ñ 日本語 \U0001f600"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("nul\x00 esc\x1b cr\r del\x7f c1\x85", "nul\\x00 esc\\x1b cr\\x0d del\\x7f c1\\x85"),
        ("lone \ud800 and \udfff", "lone \\ud800 and \\udfff"),
        ("bidi \u202e and \u2066", "bidi \\u202e and \\u2066"),
        ("nonchars \ufffe\uffff", "nonchars \\ufffe\\uffff"),
    ],
)
def test_scrub_writes_unprintable_characters_as_visible_escapes(raw: str, shown: str) -> None:
    assert scrub(raw) == shown
    scrub(raw).encode("utf-8")  # always encodable


def test_truncate_keeps_short_text_and_says_how_much_was_cut() -> None:
    assert truncate("abc", 3) == "abc"
    assert truncate("abcdef", 2) == "ab… (4 more characters in report.json)"


def test_shorten_makes_one_line_cut_at_a_word() -> None:
    assert shorten("one\ntwo  three", 20) == "one two three"
    assert shorten("alpha beta gamma", 12) == "alpha beta…"
    assert shorten("abcdefghij", 5) == "abcd…"
