"""What lies outside the strings of JSON text: its structure and its numbers."""

from __future__ import annotations

import re

#: A string of JSON text, escapes and all: a backslash and the character after it, so that an
#: escaped quote does not end it (read only in text a JSON parser or writer has made valid).
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"')


def outside_strings(text: str) -> str:
    """Valid JSON ``text`` with each of its strings removed."""
    return _STRING.sub("", text)
