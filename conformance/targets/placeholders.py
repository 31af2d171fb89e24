"""A descriptor string's placeholders filled in: ``{name}`` and ``{name[KEY]}``, nothing else.

``str.format`` would read more: attributes and items of any depth (``{file.__init__}``), format
specifications (``{port:>9999999999}`` asked for gigabytes) and conversions. A descriptor names
values, so each field is a name, or a name and one key, and anything else is unknown.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping

_FIELD = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\[(?P<key>[^\[\]]*)\])?")


class UnknownPlaceholder(ValueError):
    """A field that is no placeholder (the message names it), or braces that do not pair."""


def filled(text: str, values: Mapping[str, object]) -> str:
    """``text`` with each placeholder replaced by its value in ``values``: a plain value for
    ``{name}``, a mapping's item for ``{name[KEY]}`` (``{{`` and ``}}`` are braces)."""
    pieces = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as error:  # a brace without its pair
        raise UnknownPlaceholder(str(error)) from None
    for literal, field, spec, conversion in parsed:
        pieces.append(literal)
        if field is None:
            continue
        written = (
            "{"
            + field
            + (f"!{conversion}" if conversion else "")
            + (f":{spec}" if spec else "")
            + "}"
        )
        match = _FIELD.fullmatch(field)
        if match is None or spec or conversion or match["name"] not in values:
            raise UnknownPlaceholder(written)
        value, key = values[match["name"]], match["key"]
        if (key is None) == isinstance(value, Mapping):
            raise UnknownPlaceholder(written)
        pieces.append(str(value if key is None else value[key]))  # type: ignore[index]
    return "".join(pieces)


def names(text: str) -> set[str]:
    """The names of ``text``'s placeholders (``{file[token]}``: ``file``); what is no
    placeholder is left out, for ``filled`` to name."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return set()
    fields = (_FIELD.fullmatch(field) for _, field, _, _ in parsed if field is not None)
    return {match["name"] for match in fields if match is not None}
