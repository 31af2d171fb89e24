"""JSON text for what the MCP SDK's writer cannot write: unpaired surrogates, infinite numbers.

The SDK writes messages with pydantic, which refuses a string holding an unpaired surrogate and
writes an infinite number as ``null``. ``json_text`` writes both faithfully, as ASCII: a lone
surrogate as its escape (``"\\ud800"``), an infinite number as the number text ``1e400`` (or
``-1e400``), which every JSON reader takes as too large for a double (Python's as infinity). So
the raw channel sends such arguments byte-exact, and a transcript holding them stays JSON that
reads back the same.
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Callable
from typing import Any

_INFINITY_TEXT = "1e400"


def sdk_writes(value: Any) -> bool:
    """Whether the SDK's JSON writer writes ``value`` faithfully: no unpaired surrogate, no
    non-finite number."""
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except ValueError:  # UnicodeEncodeError included
        return False
    return True


def json_text(document: Any, default: Callable[[Any], Any] | None = None) -> str:
    """``document`` as compact ASCII JSON text: lone surrogates escaped, an infinite number as
    ``1e400`` or ``-1e400``; ``default`` as for ``json.dumps``. NaN has no JSON text: it raises
    ValueError."""
    marker = f"engram-infinity-{secrets.token_hex(8)}"
    marked = infinities_named(document, (f"{marker}+", f"{marker}-"))
    text = json.dumps(
        marked, ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=default
    )
    return text.replace(f'"{marker}+"', _INFINITY_TEXT).replace(
        f'"{marker}-"', f"-{_INFINITY_TEXT}"
    )


def infinities_named(document: Any, names: tuple[str, str] = ("Infinity", "-Infinity")) -> Any:
    """``document`` with each infinite number replaced by the string ``names[0]`` (positive) or
    ``names[1]`` (negative): JSON data, such as a report's, cannot hold one."""
    if isinstance(document, float) and math.isinf(document):
        return names[document < 0]
    if isinstance(document, dict):
        return {key: infinities_named(item, names) for key, item in document.items()}
    if isinstance(document, list | tuple):
        return [infinities_named(item, names) for item in document]
    return document
