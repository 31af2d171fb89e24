"""A drawn argument object made consistent with its ``x-crossReferences`` and ``x-clock``.

JSON Schema cannot say that a component cites an existing citation, so values drawn keyword by
keyword are random ids that rarely resolve. Each entry of the two lists is applied in order by
the step for its ``kind``; each step rewrites only the values its entry names:

- ``unique``: a repeated value is redrawn from its subschema until it differs;
- ``resolves``: a value that does not resolve is replaced by a drawn target; a list of such
  values (a pattern ending in ``/*``) is redrawn as a distinct subset of the targets, within the
  list's item bounds;
- ``not_before``: a value below its floor is redrawn between the floor and its maximum;
- ``after_now`` (``x-clock``): an Instant outside the clock window is redrawn inside it.

The capture schema lists its entries so that no step undoes an earlier one (targets are made
unique before values are resolved to them, the primary component before the primary event's
citation); the tests check every generated object against ``validate_arguments``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from engram_conformance.spec.engram_memory import instant_ms
from engram_conformance.spec.pointers import Location, matches, split_pattern
from hypothesis import assume
from hypothesis import strategies as st

from ..sizes import SMALL_ITEMS, Budget, Draw, draw_size, json_bytes
from .locations import schema_at, set_at, value_at
from .walk import draw_distinct, draw_instant

Entry = dict[str, Any]
ClockWindow = tuple[int, int]


def with_placeholders(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` whose ``resolves`` values are constant placeholders.

    ``make_consistent`` draws those values from their targets anyway; drawing them first (up to
    256 citation ids in each of 64 components) would be wasted work. A list of references
    becomes ``[]`` and a single reference ``null``, which the ``resolves`` step replaces.
    """
    copied = copy.deepcopy(schema)
    for entry in schema.get("x-crossReferences", []):
        if entry["kind"] != "resolves":
            continue
        segments = split_pattern(entry["values"])
        placeholder: Any = None
        if segments[-1] == "*":
            segments, placeholder = segments[:-1], []
        node = copied
        for segment in segments[:-1]:
            node = node["items"] if segment == "*" else node["properties"][segment]
        node["properties"][segments[-1]] = {"const": placeholder}
    return copied


def make_consistent(
    draw: Draw, document: Any, schema: dict[str, Any], budget: Budget, window: ClockWindow
) -> None:
    """Rewrite ``document`` in place so that every cross-reference and clock entry holds."""
    for entry in schema.get("x-crossReferences", []):
        _STEPS[entry["kind"]](draw, document, schema, entry, budget)
    for entry in schema.get("x-clock", []):
        _CLOCK_STEPS[entry["kind"]](draw, document, entry, window)


def _unique(draw: Draw, document: Any, schema: dict[str, Any], entry: Entry, budget: Budget):
    seen: list[Any] = []
    for location, value in list(matches(document, entry["values"])):
        if value in seen:
            value = draw_distinct(draw, schema_at(schema, location), budget, seen)
            set_at(document, location, value)
        seen.append(value)


def _resolves(draw: Draw, document: Any, schema: dict[str, Any], entry: Entry, budget: Budget):
    targets = list(dict.fromkeys(value for _, value in matches(document, entry["targets"])))
    assume(targets)
    if split_pattern(entry["values"])[-1] == "*":
        for location in _lists_of(document, entry["values"]):
            _resolve_list(draw, document, schema, location, targets, budget)
        return
    for location, value in list(matches(document, entry["values"])):
        if value not in targets:
            set_at(document, location, draw(st.sampled_from(targets)))


def _lists_of(document: Any, pattern: str) -> list[Location]:
    """The lists whose items ``pattern`` (ending in ``/*``) names."""
    parent = pattern.rsplit("/", 1)[0]
    return [location for location, value in matches(document, parent) if isinstance(value, list)]


def _resolve_list(
    draw: Draw,
    document: Any,
    schema: dict[str, Any],
    location: Location,
    targets: list[Any],
    budget: Budget,
) -> None:
    current = value_at(document, location)
    if current and all(item in targets for item in current):
        return
    bounds = schema_at(schema, location)
    low, high = bounds.get("minItems", 0), min(bounds.get("maxItems", len(targets)), len(targets))
    assume(low <= high)
    budget.refund(current)
    widest = max(json_bytes(target) for target in targets)
    count = draw_size(draw, low, budget.cap_items(low, high, widest), SMALL_ITEMS)
    chosen = draw(st.lists(st.sampled_from(targets), min_size=count, max_size=count, unique=True))
    budget.spend(chosen)
    set_at(document, location, chosen)


def _not_before(draw: Draw, document: Any, schema: dict[str, Any], entry: Entry, budget: Budget):
    floors = [value for _, value in matches(document, entry["targets"])]
    if not floors:
        return
    floor = max(floors)
    for location, value in list(matches(document, entry["values"])):
        if value < floor:
            high = schema_at(schema, location)["maximum"]
            set_at(document, location, draw(st.integers(int(floor), high)))


def _after_now(draw: Draw, document: Any, entry: Entry, window: ClockWindow) -> None:
    low, high = window
    for location, value in list(matches(document, entry["values"])):
        if not low < instant_ms(value) <= high:
            set_at(document, location, draw_instant(draw, low + 1, high))


_STEPS: dict[str, Callable[..., None]] = {
    "unique": _unique,
    "resolves": _resolves,
    "not_before": _not_before,
}
_CLOCK_STEPS: dict[str, Callable[..., None]] = {"after_now": _after_now}
