"""The consistency checks of an argument object that JSON Schema cannot state.

A tool's input schema lists them under ``x-crossReferences`` (graph consistency, clock-free) and
``x-clock`` (comparisons with the server's clock). Each entry names its rule, a ``kind`` and the
path patterns of the values it compares (see ``_pointers``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..instants import instant_ms
from ..pointers import Location, matches


@dataclass(frozen=True)
class Breach:
    """One value that breaks one cross-reference or clock entry."""

    rule: str
    location: Location
    detail: str


def _hashable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def _unique(document: Any, entry: dict[str, Any]) -> Iterator[Breach]:
    seen = set()
    for location, value in matches(document, entry["values"]):
        if _hashable(value) and value in seen:
            yield Breach(entry["rule"], location, f"{value!r} is repeated")
        seen.add(value if _hashable(value) else id(value))


def _resolves(document: Any, entry: dict[str, Any]) -> Iterator[Breach]:
    targets = {v for _, v in matches(document, entry["targets"]) if _hashable(v)}
    for location, value in matches(document, entry["values"]):
        if _hashable(value) and value not in targets:
            yield Breach(
                entry["rule"], location, f"{value!r} does not resolve to {entry['targets']}"
            )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _not_before(document: Any, entry: dict[str, Any]) -> Iterator[Breach]:
    floors = [v for _, v in matches(document, entry["targets"]) if _is_number(v)]
    for location, value in matches(document, entry["values"]):
        if _is_number(value) and any(value < floor for floor in floors):
            yield Breach(entry["rule"], location, f"{value} is before {entry['targets']}")


CROSS_REFERENCE_KINDS: dict[str, Callable[[Any, dict[str, Any]], Iterator[Breach]]] = {
    "unique": _unique,
    "resolves": _resolves,
    "not_before": _not_before,
}


def cross_reference_breaches(document: Any, entries: list[dict[str, Any]]) -> Iterator[Breach]:
    """Breaches of ``x-crossReferences`` entries, entry by entry, in document order."""
    for entry in entries:
        yield from CROSS_REFERENCE_KINDS[entry["kind"]](document, entry)


def _after_now(document: Any, entry: dict[str, Any], now_ms: int) -> Iterator[Breach]:
    for location, value in matches(document, entry["values"]):
        if isinstance(value, str) and instant_ms(value) <= now_ms:
            yield Breach(entry["rule"], location, f"{value} is not after the current time")


CLOCK_KINDS = {"after_now": _after_now}


def clock_breaches(document: Any, entries: list[dict[str, Any]], now_ms: int) -> Iterator[Breach]:
    """Breaches of ``x-clock`` entries against ``now_ms`` (epoch milliseconds)."""
    for entry in entries:
        yield from CLOCK_KINDS[entry["kind"]](document, entry, now_ms)
