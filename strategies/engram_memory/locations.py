"""Locations in an argument object, and the subschema that governs each.

The input schemas are inlined (``Spec.validator(...).schema``): every ``$ref`` is replaced by
what it names, so the subschema at a location is found by following ``properties`` and
``items`` alone. The spec's schemas use no combinators (``anyOf``, ``if``), which keeps that so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engram_conformance.spec.pointers import Location


@dataclass(frozen=True)
class Site:
    """A value present in a document, where it is, and the subschema it must meet."""

    location: Location
    schema: dict[str, Any]
    value: Any


def schema_at(schema: dict[str, Any], location: Location) -> dict[str, Any]:
    """The subschema that governs ``location``."""
    for step in location:
        schema = schema["items"] if isinstance(step, int) else schema["properties"][step]
    return schema


def sites(document: Any, schema: dict[str, Any], location: Location = ()) -> Iterator[Site]:
    """Every value of ``document`` that its schema names, parents before children."""
    yield Site(location, schema, document)
    if isinstance(document, dict):
        for name, member in schema.get("properties", {}).items():
            if name in document:
                yield from sites(document[name], member, (*location, name))
    elif isinstance(document, list) and "items" in schema:
        for index, item in enumerate(document):
            yield from sites(item, schema["items"], (*location, index))


def value_at(document: Any, location: Location) -> Any:
    for step in location:
        document = document[step]
    return document


def set_at(document: Any, location: Location, value: Any) -> None:
    value_at(document, location[:-1])[location[-1]] = value


def delete_at(document: Any, location: Location) -> None:
    del value_at(document, location[:-1])[location[-1]]


def has(document: Any, location: Location) -> bool:
    try:
        value_at(document, location)
    except (KeyError, IndexError, TypeError):
        return False
    return True


def strings(document: Any) -> set[str]:
    """Every string value of ``document``: what a fresh identifier must differ from."""
    if isinstance(document, str):
        return {document}
    members = document.values() if isinstance(document, dict) else document
    if not isinstance(document, dict | list):
        return set()
    return set().union(*(strings(member) for member in members))
