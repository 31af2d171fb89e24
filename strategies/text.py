"""Strings of an exact UTF-8 length, with non-ASCII and astral characters, NFC when asked.

Drawing tens of thousands of characters one by one would exhaust Hypothesis's buffer, so a text
is a short drawn seed repeated (tiled) up to the wanted byte length, cut at a character boundary
and padded with ``0``. Short texts are a prefix of the seed, hence fully random; long ones repeat
it. A seed shrinks to ``"0"``, so a minimal text is ``"0" * n``.
"""

from __future__ import annotations

import unicodedata

from hypothesis import assume
from hypothesis import strategies as st

from .sizes import Draw

_PAD = "0"
_SEED_CHARACTERS = 16
#: ASCII first (the shrink target), then the Basic Multilingual Plane, then astral characters.
#: Surrogate code points are excluded by default: they are not Unicode scalar values.
CHARACTERS = st.one_of(
    st.characters(codec="utf-8", max_codepoint=0x7F),
    st.characters(codec="utf-8", min_codepoint=0x80, max_codepoint=0xFFFF),
    st.characters(codec="utf-8", min_codepoint=0x10000),
)
_SEEDS = st.text(CHARACTERS, min_size=1, max_size=_SEED_CHARACTERS)
#: Insertions that make any string non-NFC, wherever they stand: singletons that NFC replaces
#: (ANGSTROM SIGN, a CJK compatibility ideograph) and pairs that NFC composes.
NOT_NFC = ("\u212b", "e\u0301", "\u1100\u1161", "\U0002f800")


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def tile(seed: str, size: int) -> str:
    """``seed`` repeated and cut to exactly ``size`` UTF-8 bytes (padded with ``0``)."""
    whole, rest = divmod(size, utf8_size(seed))
    tail, used = [], 0
    for character in seed:
        width = utf8_size(character)
        if used + width > rest:
            break
        tail.append(character)
        used += width
    return seed * whole + "".join(tail) + _PAD * (rest - used)


def draw_text(draw: Draw, size: int, *, nfc: bool) -> str:
    """A text of exactly ``size`` UTF-8 bytes; in NFC when ``nfc``."""
    seed = draw(_SEEDS)
    if nfc:
        seed = unicodedata.normalize("NFC", seed)
    text = tile(seed, size)
    if nfc:  # a seed opening with a combining mark may compose across the tiles: rare
        assume(unicodedata.is_normalized("NFC", text))
    return text


def draw_insertion(draw: Draw, text: str, insert: str) -> str:
    """``text`` with ``insert`` placed at a drawn character position."""
    at = draw(st.integers(0, len(text)))
    return text[:at] + insert + text[at:]


def draw_not_nfc(draw: Draw, low: int, high: int) -> str:
    """A text of ``low`` to ``high`` UTF-8 bytes that is not NFC (``high`` >= 3)."""
    insert = draw(st.sampled_from([i for i in NOT_NFC if utf8_size(i) <= high]))
    room = high - utf8_size(insert)
    size = draw(st.integers(min(max(low - utf8_size(insert), 0), room), room))
    return draw_insertion(draw, draw_text(draw, size, nfc=True), insert)
