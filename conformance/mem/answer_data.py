"""The first layers a ``mem_*`` answer is read through: the facts a server gives as data.

Seed 003 gives no answer format, so a vendor may answer with ``structuredContent`` or with a JSON
object as its text, under keys of its own. ``answers`` reads structured content (and the fields
the descriptor declares) before the text dialects, and a JSON text the dialects cannot read after
them. A fact is read from the object where its keys name the fact's fields: the field's own
name, its camelCase form or one of the usual others (``ALIASES``), at the top of the object or
under one wrapping key (``WRAPPERS``). Every field the fact requires must be there with its
type (read strictly: ``"5"`` is no id): a fact is never half-guessed, and an object that names
none of its fields is not the fact at all.

The descriptor's ``[answers.<tool>]`` table declares a vendor's own places, one per fact field:
a JSON Pointer into the object (``"/data/memory_id"``), or ``re:`` and a pattern whose first group
is read from the answer's text (``"re:saved as #(\\d+)"``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import types
import typing
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError
from referencing import Registry, Resource
from referencing.exceptions import PointerToNowhere

from .answer_text import Answer, Unreadable
from .facts import (
    ContextObservation,
    CurrentProject,
    Fact,
    MemoryVerdict,
    PairVerdict,
    SessionEnded,
    SessionStarted,
)
from .settings import PATTERN

F = TypeVar("F", bound=Fact)
#: the keys an answer may wrap its fact in
WRAPPERS = ("observation", "memory", "session", "data", "result")
#: the usual other names of a fact's fields (after the field's own name and its camelCase)
ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("observation_id", "memory_id", "observationId", "memoryId"),
    "hits": ("results", "matches", "memories", "observations", "items"),
    "preview": ("content", "snippet", "excerpt"),
    "topic_key": ("key", "suggested_topic_key"),
    "type": ("kind", "category"),
    "observations": ("recent_memories", "recentMemories", "memories", "recent_observations"),
    "personal": ("personal_memories", "personalMemories"),
}
#: a session fact's id is the session's
SESSION_ALIASES: dict[str, tuple[str, ...]] = {"id": ("session_id", "sessionId")}
#: the aliases of the facts whose fields are named otherwise than elsewhere
KIND_ALIASES: dict[type, dict[str, tuple[str, ...]]] = {
    SessionStarted: SESSION_ALIASES,
    SessionEnded: SESSION_ALIASES,
    # a memory listed in a context shows its content, or a preview of it
    ContextObservation: {"content": ("preview", "snippet", "excerpt")},
    MemoryVerdict: {"verdict": ("status", "judgement", "judgment", "state")},
    PairVerdict: {
        "first": ("a", "source", "left", "first_id", "memory_a", "id_a"),
        "second": ("b", "target", "right", "second_id", "memory_b", "id_b"),
        "reason": ("why", "explanation"),
    },
    CurrentProject: {
        "source": ("project_source", "detected_from", "detection"),
        "cwd": ("directory", "working_directory", "workdir", "dir"),
    },
}


def data_of(answer: Answer) -> Mapping[str, Any] | None:
    """The object an answer gives as data: its ``structuredContent``, else a JSON object that
    is its whole text or one of its text blocks; ``None`` for none."""
    if isinstance(answer.structured, Mapping):
        return answer.structured
    return next(filter(None, map(_json_object, (answer.text, *answer.blocks))), None)


def _json_object(text: str) -> dict[str, Any] | None:
    if not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_data(
    kind: type[F],
    tool: str,
    answer: Answer,
    data: Mapping[str, Any] | None,
    declared: Mapping[str, str],
) -> F:
    """The ``kind`` fact ``data`` (and the text, for declared patterns) holds; ``Unreadable``
    when it names none of the fact's fields or lacks one the fact requires."""
    names = {field.name for field in _fields(kind)}
    unknown = sorted(set(declared) - names)
    if unknown:
        why = f"the descriptor declares {', '.join(unknown)}, no field of {kind.__name__} "
        raise Unreadable(tool, answer.text, f"{why}(its fields: {', '.join(sorted(names))})")
    found: dict[str, Any] = {}
    for name, source in declared.items():
        found[name] = _declared(tool, answer, data or {}, name, source)
    if data is not None:
        inner = _fact_object(kind, data)
        found = _shaped(kind, inner, aliases=_aliases(kind)) | found
    if not found:
        raise Unreadable(tool, answer.text, f"the answer's data names no field of {kind.__name__}")
    try:
        # a class is hashable, but mypy does not read type[F] as Hashable for the cache
        adapter = _adapter(kind)  # type: ignore[arg-type]
        return adapter.validate_json(json.dumps(found), strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise Unreadable(
            tool, answer.text, f"as {kind.__name__}, {where}: {first['msg']}"
        ) from None


def record_of(kind: type[F], tool: str, answer: Answer, memory_id: Any) -> F:
    """The ``kind`` fact of the object in ``answer``'s data whose id is ``memory_id`` (a hit of a
    search, the memory a save answers): ``Unreadable`` when its data shows none."""
    aliases = _aliases(kind)
    for item in _objects(data_of(answer)):
        inner = _fact_object(kind, item)
        key = key_of("id", inner, aliases)
        if key is not None and inner[key] == memory_id:
            return read_data(kind, tool, answer, inner, {})
    raise Unreadable(tool, answer.text, f"its data shows no memory with id {memory_id!r}")


def _objects(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every object in a JSON value, outer ones first."""
    if isinstance(value, Mapping):
        yield value
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _objects(item)


def _declared(tool: str, answer: Answer, data: Mapping[str, Any], name: str, source: str) -> Any:
    if source.startswith(PATTERN):
        match = re.search(source.removeprefix(PATTERN), answer.text)
        if match is None:
            raise Unreadable(tool, answer.text, f"the declared {name} {source!r} does not match")
        value: Any = match.group(1)
        return int(value) if value.isascii() and value.isdigit() and name != "title" else value
    try:
        return Resource.opaque(data).pointer(source, Registry().resolver()).contents
    except PointerToNowhere:
        raise Unreadable(tool, answer.text, f"the declared {name} {source!r} is absent") from None


def _aliases(kind: type) -> Mapping[str, tuple[str, ...]]:
    return ALIASES | KIND_ALIASES.get(kind, {})


def _fact_object(kind: type, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` with the fields of the object under its first wrapping key that names some
    (``{"action": "created", "memory": {...}}``, a hit ``{"score": 1, "memory": {...}}``): the
    top's own fields first, the wrapped object's for those the top does not name."""
    for wrapper in WRAPPERS:
        inner = data.get(wrapper)
        if isinstance(inner, Mapping) and _named_fields(kind, inner):
            aliases = _aliases(kind)
            own = {
                field.name: data[key]
                for field in _fields(kind)
                if (key := key_of(field.name, data, aliases)) is not None and key != wrapper
            }
            return {**inner, **own}  # under the fields' own names, which are read first
    return data


def _named_fields(kind: type, data: Mapping[str, Any]) -> bool:
    aliases = _aliases(kind)
    return any(key_of(field.name, data, aliases) is not None for field in _fields(kind))


def _fields(kind: type) -> list[dataclasses.Field[Any]]:
    return [field for field in dataclasses.fields(kind) if field.name not in ("envelope", "shown")]


def key_of(
    name: str, data: Mapping[str, Any], aliases: Mapping[str, tuple[str, ...]]
) -> str | None:
    """The key of ``data`` that holds the field ``name``: the name, its camelCase form or one of
    its ``aliases``."""
    head, *rest = name.split("_")
    camel = head + "".join(part.title() for part in rest)
    return next((key for key in (name, camel, *aliases.get(name, ())) if key in data), None)


def _shaped(
    kind: type, data: Mapping[str, Any], aliases: Mapping[str, tuple[str, ...]]
) -> dict[str, Any]:
    """``data`` under ``kind``'s field names, nested facts shaped the same way."""
    hints = typing.get_type_hints(kind)
    shaped: dict[str, Any] = {}
    for field in _fields(kind):
        key = key_of(field.name, data, aliases)
        if key is None:
            continue
        value = data[key]
        nested = _nested_kind(hints[field.name])
        if nested is not None and isinstance(value, list):
            value = [_nested(nested, item) if isinstance(item, Mapping) else item for item in value]
        elif nested is not None and isinstance(value, Mapping):
            value = _nested(nested, value)
        shaped[field.name] = value
    return shaped


def _nested(kind: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """An object inside a fact (a hit, a listed memory) under ``kind``'s field names."""
    return _shaped(kind, _fact_object(kind, data), _aliases(kind))


def _nested_kind(hint: Any) -> type | None:
    """The dataclass a field holds (alone, optional or as a tuple of them), if any."""
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return hint
    if typing.get_origin(hint) in (tuple, typing.Union, types.UnionType):
        return next(filter(None, map(_nested_kind, typing.get_args(hint))), None)
    return None


@cache
def _adapter(kind: type[F]) -> TypeAdapter[F]:
    return TypeAdapter(kind)
