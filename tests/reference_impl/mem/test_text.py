"""The mem reference's text helpers read whitespace as the regular expression ``\\s`` does."""

from __future__ import annotations

import re
import sys

from engram_conformance.reference_impl.mem.text import content_hash, one_line

#: Every character ``\s`` matches (what ``str.split`` splits at, too).
WHITESPACE = re.findall(r"\s", "".join(map(chr, range(sys.maxunicode + 1))))


def test_one_line_collapses_every_whitespace_character_as_backslash_s_reads_it() -> None:
    text = " \u3000a" + "".join(f"{space}{space}b{space}" for space in WHITESPACE) + "\x1c"
    assert one_line(text) == re.sub(r"\s+", " ", text).strip()
    assert one_line(text).startswith("a b b") and not one_line(text).endswith(" ")


def test_contents_differing_only_in_whitespace_hash_alike() -> None:
    assert content_hash("Use\u2003the\n\npool ") == content_hash(" use the pool")
    assert content_hash("use the pool") != content_hash("use the poll")
