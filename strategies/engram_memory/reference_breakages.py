"""Breakages of the schema's ``x-crossReferences`` and ``x-clock`` entries, one entry at a time.

``validate_arguments`` reports the first breach entry by entry, so breaking entry *n* must leave
entries 1 to *n*-1 whole: a value made to dangle for ``XREF-006`` (the primary event's citation
is not in the primary component) must still resolve for ``XREF-005`` (it is a citation). Later
entries may break too; they are never reached.

- ``unique``: a later value is given an earlier one's value; with a single value, its array item
  is copied (when the array has room);
- ``resolves``: a value is replaced by a fresh id; when an earlier ``resolves`` entry names the
  same values, by one of that entry's targets outside this entry's, adding such a target (a
  copy of a target's array item with a fresh id) when there is none;
- ``not_before``: the value is set below its floor (created if absent);
- ``after_now`` (``x-clock``): the Instant is set in the past (created if absent). Such an
  object is valid without a clock: ``clock_dependent``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from engram_conformance.spec.engram_memory import instant_ms
from engram_conformance.spec.pointers import Location, matches, split_pattern, to_pointer
from hypothesis import strategies as st

from ..sizes import Draw
from .breakage import Apply, Breakage, Context, draw_fresh, ensure_parents
from .locations import schema_at, set_at, value_at
from .walk import EARLIEST_INSTANT_MS, MAX_SAFE_INTEGER, draw_instant

#: An ``after_now`` value is broken with an Instant no later than this: past for any run.
PAST_MS = instant_ms("2000-01-01T00:00:00.000Z")

Entry = dict[str, Any]


def reference_breakages(context: Context, document: dict[str, Any]) -> Iterator[Breakage]:
    entries = context.schema.get("x-crossReferences", [])
    for index, entry in enumerate(entries):
        if entry["kind"] == "unique":
            yield from _repeated(context, entry, document)
        elif entry["kind"] == "resolves":
            yield from _dangling(context, entry, entries[:index], document)
        elif entry["kind"] == "not_before":
            yield from _before(context, entry, document)
    for entry in context.schema.get("x-clock", []):
        if entry["kind"] == "after_now":
            yield from _in_the_past(context, entry, document)


def _star(pattern: str) -> int:
    """The position in a location of the array index that the pattern's last ``*`` stands for."""
    segments = split_pattern(pattern)
    return len(segments) - 1 - segments[::-1].index("*")


def _room(context: Context, document: Any, array_location: Location) -> bool:
    maximum = schema_at(context.schema, array_location).get("maxItems")
    return maximum is None or len(value_at(document, array_location)) < maximum


def _setting_one_of(location: Location, values: list[Any]) -> Apply:
    return lambda draw, document: set_at(document, location, draw(st.sampled_from(values)))


def _repeated(context: Context, entry: Entry, document: Any) -> Iterator[Breakage]:
    found = list(matches(document, entry["values"]))
    description = f"a repeated value of {entry['values']}"
    for later, (location, _) in enumerate(found[1:], start=1):
        earlier = [value for _, value in found[:later]]
        yield Breakage(
            location,
            entry["rule"],
            description,
            _setting_one_of(location, earlier),
        )
    if len(found) == 1:
        star = _star(entry["values"])
        array_location, index = found[0][0][:star], found[0][0][star]
        if _room(context, document, array_location):
            size = len(value_at(document, array_location))
            copied = (*array_location, size, *found[0][0][star + 1 :])

            def apply(draw: Draw, document: dict[str, Any]) -> None:
                items = value_at(document, array_location)
                items.append(copy.deepcopy(items[index]))

            text = f"{description}: a copy of {to_pointer(found[0][0][: star + 1])} appended"
            yield Breakage(copied, entry["rule"], text, apply)


def _dangling(
    context: Context, entry: Entry, earlier: list[Entry], document: Any
) -> Iterator[Breakage]:
    same = [e for e in earlier if e["kind"] == "resolves" and e["values"] == entry["values"]]
    if len(same) > 1:
        return  # a value that must resolve into two other lists: not generated
    targets = [value for _, value in matches(document, entry["targets"])]
    for location, _ in matches(document, entry["values"]):
        description = f"a reference outside {entry['targets']}"
        if not same:
            apply = _fresh_at(context, location)
        else:
            allowed = [v for _, v in matches(document, same[0]["targets"]) if v not in targets]
            apply = (
                _setting_one_of(location, allowed)
                if allowed
                else _new_target(context, document, same[0]["targets"], location)
            )
        if apply is not None:
            yield Breakage(location, entry["rule"], description, apply)


def _fresh_at(context: Context, location: Location) -> Apply:
    def apply(draw: Draw, document: dict[str, Any]) -> None:
        set_at(document, location, draw_fresh(draw, schema_at(context.schema, location), document))

    return apply


def _new_target(context: Context, document: Any, targets: str, location: Location) -> Apply | None:
    """Add a target (a copy of a target's array item with a fresh id) and refer to it."""
    star = _star(targets)
    some_target = next(iter(matches(document, targets)))[0]
    array_location, inner = some_target[:star], some_target[star + 1 :]
    if not inner or not _room(context, document, array_location):
        return None

    def apply(draw: Draw, document: dict[str, Any]) -> None:
        fresh = draw_fresh(draw, schema_at(context.schema, some_target), document)
        item = copy.deepcopy(value_at(document, some_target[: star + 1]))
        set_at(item, inner, fresh)
        value_at(document, array_location).append(item)
        set_at(document, location, fresh)

    return apply


def _locations(context: Context, pattern: str, document: Any) -> list[Location]:
    """Where a pattern's values are, or for a plain pointer, where its value would be."""
    segments = split_pattern(pattern)
    if any(segment == "*" or segment.startswith("[") for segment in segments):
        return [location for location, _ in matches(document, pattern)]
    location: Location = ()
    for segment in segments:
        is_array = schema_at(context.schema, location).get("type") == "array"
        location = (*location, int(segment) if is_array else segment)
    return [location]


def _before(context: Context, entry: Entry, document: Any) -> Iterator[Breakage]:
    floors = [value for _, value in matches(document, entry["targets"])]
    for location in _locations(context, entry["values"], document):
        minimum = schema_at(context.schema, location).get("minimum", -MAX_SAFE_INTEGER)
        if not floors or max(floors) - 1 < minimum:
            continue
        below = st.integers(minimum, int(max(floors)) - 1)

        def apply(draw: Draw, document: dict[str, Any], location=location, below=below) -> None:
            ensure_parents(draw, document, context.schema, location)
            set_at(document, location, draw(below))

        description = f"a value below {entry['targets']}"
        yield Breakage(location, entry["rule"], description, apply)


def _in_the_past(context: Context, entry: Entry, document: Any) -> Iterator[Breakage]:
    for location in _locations(context, entry["values"], document):

        def apply(draw: Draw, document: dict[str, Any], location=location) -> None:
            ensure_parents(draw, document, context.schema, location)
            set_at(document, location, draw_instant(draw, EARLIEST_INSTANT_MS, PAST_MS))

        description = "an Instant in the past (checked against the clock)"
        yield Breakage(location, entry["rule"], description, apply, clock_dependent=True)
