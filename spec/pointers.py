"""JSON Pointers (RFC 6901) and the spec's path patterns over argument objects (public: the
strategies read x-crossReferences with them too).

A path pattern is a JSON Pointer whose segments may also be ``*`` (every array item or object
member) or ``[key=@/pointer]`` (the array items whose ``key`` equals the value found at the
absolute pointer). Patterns name the values that cross-reference and clock checks compare.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

Location = tuple[str | int, ...]
_SEGMENT = re.compile(r"/(\[[^\]]*\]|[^/]*)")
_SELECTOR = re.compile(r"^\[(?P<key>[^=\]]+)=@(?P<pointer>/[^\]]*)\]$")


def to_pointer(location: Iterable[str | int]) -> str:
    """Render a location as a JSON Pointer."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)


def split_pattern(pattern: str) -> list[str]:
    """Split a pointer or path pattern into unescaped segments."""
    if not pattern:
        return []
    if not pattern.startswith("/"):
        raise ValueError(f"a path must start with '/': {pattern!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in _SEGMENT.findall(pattern)]


def resolve(document: Any, pointer: str) -> Any:
    """The value at a plain JSON Pointer; raises LookupError when there is none."""
    current = document
    for segment in split_pattern(pointer):
        if isinstance(current, list) and segment.isdigit() and int(segment) < len(current):
            current = current[int(segment)]
        elif isinstance(current, dict) and segment in current:
            current = current[segment]
        else:
            raise LookupError(pointer)
    return current


def matches(document: Any, pattern: str) -> Iterator[tuple[Location, Any]]:
    """Every (location, value) that ``pattern`` names in ``document``, in document order.

    Parts of the pattern that the document lacks, or that have another shape, match nothing.
    """
    found: list[tuple[Location, Any]] = [((), document)]
    for segment in split_pattern(pattern):
        found = [
            hit for location, value in found for hit in _step(document, location, value, segment)
        ]
    yield from found


def _step(document: Any, location: Location, value: Any, segment: str):
    selector = _SELECTOR.match(segment)
    if segment == "*" or selector:
        if isinstance(value, list):
            members: Iterable[tuple[str | int, Any]] = enumerate(value)
        elif isinstance(value, dict) and not selector:
            members = value.items()
        else:
            return
        for key, member in members:
            if selector and not _selected(document, member, selector):
                continue
            yield (*location, key), member
    elif isinstance(value, dict) and segment in value:
        yield (*location, segment), value[segment]
    elif isinstance(value, list) and segment.isdigit() and int(segment) < len(value):
        yield (*location, int(segment)), value[int(segment)]


def _selected(document: Any, member: Any, selector: re.Match[str]) -> bool:
    try:
        wanted = resolve(document, selector["pointer"])
    except LookupError:
        return False
    return isinstance(member, dict) and member.get(selector["key"]) == wanted
