"""Text rules every mem tool shares: privacy redaction, the content cap, snippets, slugs, the
content hash, and how answers quote a value."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata

#: The most characters of content a memory keeps; beyond, it is cut and ``TRUNCATED`` appended.
#: Upstream v1.7.0 cut at 2000 bytes, v1.20 at 50 000: the seed's What/Why/Where/Learned memories
#: and session summaries with their file lists outgrow 2000, so this follows v1.20, in
#: characters (a cut in bytes can split a UTF-8 sequence).
CONTENT_CAP = 50_000
TRUNCATED = "... [truncated]"
REDACTED = "[REDACTED]"
#: A privacy tag as a person may write it: any case, blanks inside the brackets, attributes
#: (``<private>``, ``< PRIVATE >``, ``<private reason="key">``, ``</private >``). Reading every
#: such spelling as a tag fails closed: text its writer meant to hide is hidden. The blanks are
#: possessive: two runs that could trade blanks made a long run quadratic (attack round 5: a
#: ``<`` and 40,000 blanks held the server for 17 s).
_TAG = re.compile(r"<\s*+(/?)\s*+private(?:\s[^<>]*+)?>", re.IGNORECASE)
#: The invisible format characters that can sit unseen inside a word of Latin letters (a soft
#: hyphen, zero width characters, direction marks, word joiners, a byte order mark, tags): a
#: tag spelled with them inside reads as a tag to a person (attack round 6).
_INVISIBLE_CLASS = (
    "\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    "\U000e0001\U000e0020-\U000e007f"
)
_INVISIBLE = re.compile(f"[{_INVISIBLE_CLASS}]")
#: A character a reader sees: neither a blank nor one of ``_INVISIBLE``.
_SEEN = re.compile(rf"[^\s{_INVISIBLE_CLASS}]")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def redact(text: str) -> str:
    """``text`` with each ``<private>…</private>`` (any spelling of ``_TAG``, across lines)
    replaced by ``[REDACTED]``, then trimmed. It fails closed: a span holding others is
    redacted whole, to the closing tag of its own opening one, and an opening tag never closed
    redacts everything after it; a closing tag with no opening one stays as it is. A text that
    holds a tag only a reader sees (in fullwidth forms, or with invisible characters inside:
    ``_loosely``) is redacted as read loosely, and kept in that form.

    One scan of the tags rather than a regular expression: a non-greedy pattern over text with
    many openings and no closing tag takes quadratic time, and contents are not bounded before
    redaction (the cap applies after, so that a secret that straddles it is never half kept)."""
    if not text.isascii():
        loose = _loosely(text)
        if loose != text and _TAG.findall(loose) != _TAG.findall(text):
            text = loose
    pieces: list[str] = []
    kept_from, depth = 0, 0
    for tag in _TAG.finditer(text):
        if tag.group(1):  # a closing tag
            if depth == 0:
                continue
            depth -= 1
            if depth == 0:
                kept_from = tag.end()
        else:
            if depth == 0:
                pieces += [text[kept_from : tag.start()], REDACTED]
            depth += 1
    if depth == 0:  # else the last span runs to the end: nothing after it is kept
        pieces.append(text[kept_from:])
    return "".join(pieces).strip()


def _loosely(text: str) -> str:
    """``text`` as a reader sees it: compatibility forms folded (NFKC: a fullwidth less-than
    sign is ``<``), invisible characters dropped."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def shows_nothing(text: str) -> bool:
    """Whether a reader sees nothing of ``text``: it holds only blanks and invisible characters
    (attack round 6: a content of zero width spaces was saved as a memory). The search stops at
    the first character seen, so a long text costs nothing."""
    return _SEEN.search(text) is None


def has_private_span(text: str) -> bool:
    """Whether ``text`` opens a ``<private>`` span, as written or once folded (``folded_form``:
    a name is stored folded, where a fullwidth tag becomes a tag)."""
    return any(
        not tag.group(1) for form in (text, folded_form(text)) for tag in _TAG.finditer(form)
    )


def folded_form(text: str) -> str:
    """``text`` with its compatibility forms folded (NFKC: fullwidth letters, no-break spaces)
    and its invisible format characters dropped (a zero width space): how names are compared
    and stored, so that spellings a reader cannot tell apart are one name."""
    folded = unicodedata.normalize("NFKC", text)
    return "".join(char for char in folded if unicodedata.category(char) != "Cf")


def capped(content: str) -> str:
    """Content as stored: at most ``CONTENT_CAP`` characters of it, marked when cut."""
    return content if len(content) <= CONTENT_CAP else content[:CONTENT_CAP] + TRUNCATED


def within_bytes(text: str, most: int, marker: str, free: range = range(0)) -> str:
    """``text`` if its UTF-8 takes at most ``most`` bytes; else cut to fit, with ``marker``
    after it. The cut is on a character boundary: inside ``free`` (the indices of a free text
    in ``text``, which reads as well cut anywhere), where it falls; elsewhere at the last line
    break that leaves room, so that no line of a listing is left half (at the character, when
    there is none). Even ``marker`` is left out when there is no room for it."""
    encoded = text.encode("utf-8")
    if len(encoded) <= most:
        return text
    room = most - len(marker.encode("utf-8"))
    if room < 0:
        return encoded[:most].decode("utf-8", errors="ignore")
    kept = encoded[:room].decode("utf-8", errors="ignore")
    line_end = kept.rfind("\n")
    if free.start < len(kept) <= free.stop or line_end <= 0:
        return kept + marker
    return kept[:line_end] + marker


def one_line(text: str) -> str:
    """Whitespace runs (newlines included) collapsed to one space, none at either end: one
    listing line per item. ``str.split`` reads whitespace as ``\\s`` does, twice as fast."""
    return " ".join(text.split())


def snippet(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` on one line, ``...`` appended when cut."""
    line = one_line(text)
    return line if len(line) <= limit else line[:limit] + "..."


def content_hash(content: str) -> str:
    """The dedupe hash: SHA-256 of the content lowercased with whitespace runs collapsed."""
    return hashlib.sha256(one_line(content.lower()).encode("utf-8")).hexdigest()


def folded(text: str) -> str:
    """``text`` lowercased, accents folded (``migración`` → ``migracion``), as the FTS5 index
    folds them."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def slug(text: str, limit: int = 100) -> str:
    """Lowercase ASCII words joined by ``-``: accents folded, every other run of characters
    outside ``a-z0-9`` a separator, cut to ``limit``."""
    return "-".join(_NOT_SLUG.sub(" ", folded(text)).split())[:limit].strip("-")


def quoted(value: str) -> str:
    """A value double-quoted in an answer, as upstream's Go ``%q`` does (JSON string escapes)."""
    return json.dumps(value, ensure_ascii=False)
