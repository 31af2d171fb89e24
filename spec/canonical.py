"""Canonical JSON (RFC 8785, JCS) and the contract's ``sha256:`` digests.

``rfc8785`` writes the canonical form one value at a time in Python, about 6 ms for a capture at
the argument bound, and a call computes several digests. For JSON data of the common kind the
standard library's C encoder writes the very same bytes: keys sorted, no white space, strings
escaped as JCS escapes them (``\\"``, ``\\\\``, the five short forms, other controls as lower-case
``\\u00xx``, the rest as UTF-8). It differs only where JCS says more, so ``canonical_json`` takes
the encoder's text when it holds none of that and asks ``rfc8785`` otherwise: a float written
with an exponent or as a whole number (JCS writes floats as ECMAScript does, ``1e-7`` and ``2``
where Python writes ``1e-07`` and ``2.0``), an integer of 16 digits or more (JCS refuses those
beyond 2**53 - 1), a character beyond the BMP (JCS sorts keys by UTF-16 code units, Python by
code points), and anything the encoder refuses or UTF-8 cannot encode (NaN, a lone surrogate, a
type that is not JSON). A float with a fraction and no exponent is written alike: both write the
shortest digits that read back as the float, and Python writes no exponent exactly from 1e-4 to
1e16, where ECMAScript writes none either (a search's scores are such floats). The values
canonicalized are JSON data: object keys are strings (the encoder would write an integer key as
a string where ``rfc8785`` refuses it).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import rfc8785

from .json_text import outside_strings

DIGEST_PREFIX = "sha256:"
_ENCODER = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")
)
#: Outside strings: what JCS writes otherwise or refuses: a float's exponent (after a digit:
#: "true" and "false" hold an e too), a float of no fraction (``2.0``, ``-0.0``), an integer
#: of 16 digits or more (or a float's whole part of 16 digits: rare, and left to ``rfc8785``).
_NOT_PLAIN_NUMBER = re.compile(r"[0-9][eE]|\.0(?![0-9])|(?<![.0-9])[0-9]{16}")


def canonical_json(value: Any) -> bytes:
    """The UTF-8 bytes of the RFC 8785 canonical form of ``value``."""
    try:
        text = _ENCODER.encode(value)
    except (TypeError, ValueError):
        return rfc8785.dumps(value)
    if _NOT_PLAIN_NUMBER.search(outside_strings(text)) or _beyond_bmp(text):
        return rfc8785.dumps(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return rfc8785.dumps(value)  # a lone surrogate: rfc8785's own error


def _beyond_bmp(text: str) -> bool:
    """Whether ``text`` holds a character beyond the BMP: two UTF-16 code units (encoding is
    C-fast, where a character class reads each character)."""
    return not text.isascii() and len(text.encode("utf-16-le", "surrogatepass")) > 2 * len(text)


def digest(value: Any, domain: bytes = b"") -> str:
    """``sha256:`` + lowercase hex of SHA-256 over ``domain`` then the JCS bytes of ``value``.

    The contract's digests (DESIGN.md, Decisions / Digests) use no domain. The upstream engine
    prefixes a NUL-terminated domain such as ``b"graphify-memory/payload/v2\\0"``; passing it
    reproduces upstream digests, which is how the canonicalization is proven against them.
    """
    return DIGEST_PREFIX + hashlib.sha256(domain + canonical_json(value)).hexdigest()


def operation_digest(tool: str, arguments: dict[str, Any]) -> str:
    """The digest a confirmation binds: JCS of ``{"tool": name, "arguments": arguments}``."""
    return digest({"tool": tool, "arguments": arguments})
