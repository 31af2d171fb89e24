"""Values that meet a subschema, drawn keyword by keyword.

Every keyword of the spec's input schemas is honoured: ``type``, ``const``, ``enum``, integer
``minimum``/``maximum``, ``pattern``, ``minLength``, the UTF-8 bounds ``x-minBytes``/``x-maxBytes``,
``x-nfc``, ``x-instant``, closed objects with ``required`` and optional ``properties`` (an
optional field is omitted or present, never null), and arrays with ``minItems``/``maxItems``,
``uniqueItems`` and ``x-sortedUnique``. A keyword this module does not know raises, so that a
spec change cannot silently yield values the generator never meant.
"""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory import instant, instant_ms, utf16_key
from hypothesis import assume
from hypothesis import strategies as st

from ..sizes import SMALL_BYTES, SMALL_ITEMS, Budget, Draw, draw_size
from ..text import draw_text

MAX_SAFE_INTEGER = 2**53 - 1
EARLIEST_INSTANT_MS = 0
LATEST_INSTANT_MS = instant_ms("9999-12-31T23:59:59.999Z")
#: A string the spec leaves unbounded (a page cursor) is drawn up to this many bytes.
UNBOUNDED_STRING_BYTES = 256
#: An array the spec leaves unbounded is drawn with up to this many items beyond its minimum.
UNBOUNDED_ARRAY_ITEMS = 8
#: Fresh draws tried for an item that must differ from the others before the example is dropped.
DISTINCT_TRIES = 32

_ANNOTATIONS = {"$schema", "$id", "title", "description", "default", "x-rules"}
_ROOT_ONLY = {"x-crossReferences", "x-clock"}
_KNOWN = {
    *_ANNOTATIONS,
    *_ROOT_ONLY,
    "type",
    "const",
    "enum",
    "minimum",
    "maximum",
    "pattern",
    "minLength",
    "x-minBytes",
    "x-maxBytes",
    "x-nfc",
    "x-instant",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "x-sortedUnique",
}


def draw_value(draw: Draw, schema: dict[str, Any], budget: Budget) -> Any:
    """A value that ``schema`` accepts; strings and lists are capped by ``budget``."""
    unknown = set(schema) - _KNOWN
    if unknown:
        raise ValueError(f"no generator for the keywords {sorted(unknown)}")
    if "const" in schema:
        value = schema["const"]
    elif "enum" in schema:
        value = draw(st.sampled_from(schema["enum"]))
    else:
        return _BY_TYPE[schema["type"]](draw, schema, budget)
    budget.spend(value)
    return value


def draw_instant(draw: Draw, low_ms: int, high_ms: int) -> str:
    return instant(draw(st.integers(low_ms, high_ms)))


def draw_distinct(draw: Draw, schema: dict[str, Any], budget: Budget, taken: Any) -> Any:
    """A value of ``schema`` that is not in ``taken``."""
    for _ in range(DISTINCT_TRIES):
        value = draw_value(draw, schema, budget)
        if value not in taken:
            return value
    assume(False)
    raise AssertionError("unreachable: assume(False) raises")


def _integer(draw: Draw, schema: dict[str, Any], budget: Budget) -> int | float:
    low = schema.get("minimum", -MAX_SAFE_INTEGER)
    high = schema.get("maximum", MAX_SAFE_INTEGER)
    value = draw(st.one_of(st.integers(low, high), st.sampled_from([low, high])))
    # JSON Schema counts 10.0 as an integer (rule SCHEMA-033): now and then send one.
    if draw(st.integers(0, 9)) == 9:
        value = float(value)
    budget.spend(value)
    return value


def _string(draw: Draw, schema: dict[str, Any], budget: Budget) -> str:
    if schema.get("x-instant"):
        value = draw_instant(draw, EARLIEST_INSTANT_MS, LATEST_INSTANT_MS)
    elif "pattern" in schema:
        if "x-minBytes" in schema or "x-maxBytes" in schema or "x-nfc" in schema:
            raise ValueError("no generator for a pattern with byte bounds or NFC")
        value = draw(st.from_regex(schema["pattern"], fullmatch=True))
    else:
        low = max(schema.get("x-minBytes", 0), schema.get("minLength", 0))
        high = schema.get("x-maxBytes", low + UNBOUNDED_STRING_BYTES)
        size = draw_size(draw, low, budget.cap_bytes(low, high), SMALL_BYTES)
        value = draw_text(draw, size, nfc=schema.get("x-nfc", False))
        assume(len(value) >= schema.get("minLength", 0))  # bytes >= minLength: true for 0 and 1
    budget.spend(value)
    return value


def _object(draw: Draw, schema: dict[str, Any], budget: Budget) -> dict[str, Any]:
    if schema.get("additionalProperties", True) is not False:
        raise ValueError("no generator for open objects: every input object is closed")
    required = set(schema.get("required", ()))
    return {
        name: draw_value(draw, member, budget)
        for name, member in schema["properties"].items()
        if name in required or draw(st.booleans())
    }


def _array(draw: Draw, schema: dict[str, Any], budget: Budget) -> list[Any]:
    low = schema.get("minItems", 0)
    high = schema.get("maxItems", low + UNBOUNDED_ARRAY_ITEMS)
    count = draw_size(draw, low, budget.cap_items(low, high), SMALL_ITEMS)
    distinct = schema.get("uniqueItems", False) or schema.get("x-sortedUnique", False)
    items: list[Any] = []
    for _ in range(count):
        if distinct:
            items.append(draw_distinct(draw, schema["items"], budget, items))
        else:
            items.append(draw_value(draw, schema["items"], budget))
    if schema.get("x-sortedUnique"):
        items.sort(key=utf16_key)
    return items


_BY_TYPE = {"integer": _integer, "string": _string, "object": _object, "array": _array}
