"""Breakages of single schema keywords, found by walking a valid object beside its schema.

For every value present: null, a wrong JSON type, a value outside an ``enum`` or ``const``, a
UTF-8 length one byte outside ``x-minBytes``/``x-maxBytes``, a non-NFC string, a string that
misses its ``pattern`` (a bad digest is ``INVALID_DIGEST``), an Instant that names no real
calendar instant, an integer one outside its range, an empty string below ``minLength``, a list
one item outside its bounds, a repeated item in a distinct list, a sorted list out of order
under every usual order or repeating (XREF-009's), one sorted by code points but not by UTF-16
code units (the order the spec decides: XREF-011's), and a lone surrogate. For every closed
object: an extra property, a missing required field, and null for an absent optional field. For
the whole object: the 1 MiB bound.
"""

from __future__ import annotations

import bisect
import copy
import unicodedata
from collections.abc import Iterator
from typing import Any

from engram_conformance.spec.engram_memory import UTF16_ORDER, SpecValidator, utf16_key
from engram_conformance.spec.pointers import Location
from hypothesis import assume
from hypothesis import strategies as st

from ..sizes import Budget, Draw
from ..text import draw_insertion, draw_not_nfc, draw_text, utf8_size
from .breakage import FILLER_BYTES, Apply, Breakage, Context
from .locations import Site, delete_at, schema_at, set_at, sites, value_at
from .walk import UNBOUNDED_STRING_BYTES, draw_distinct

#: A JSON value of each type, to put where another type is wanted (null is its own breakage).
_OF_TYPE: dict[str, st.SearchStrategy[Any]] = {
    "string": st.text(max_size=8),
    "integer": st.integers(-(2**31), 2**31),
    "number": st.floats(allow_nan=False, allow_infinity=False).filter(
        lambda number: not number.is_integer()
    ),
    "boolean": st.booleans(),
    "array": st.just([]),
    "object": st.just({}),
}
#: What each schema type accepts among those (JSON Schema counts 1.0 as an integer).
_ACCEPTS = {"integer": {"integer"}, "number": {"integer", "number"}}
#: Edits that make a string miss an anchored pattern (the newline: ECMA-262 ``$`` ends the text).
_PATTERN_EDITS = (
    ("append a newline", lambda text: text + "\n"),
    ("prefix a space", lambda text: " " + text),
    ("drop the last character", lambda text: text[:-1]),
    ("upper-case it", str.upper),
    ("append 'Z'", lambda text: text + "Z"),
)
#: Instant fields (slice of YYYY-MM-DDTHH:mm:ss.sssZ) and values no calendar has. Seconds 60 and
#: 61 are left out: Python's strptime, hence the spec, takes them as leap seconds.
_UNREAL_FIELDS = {
    "month": (slice(5, 7), [0, *range(13, 100)]),
    "day": (slice(8, 10), [0, *range(32, 100)]),
    "hour": (slice(11, 13), list(range(24, 100))),
    "minute": (slice(14, 16), list(range(60, 100))),
    "second": (slice(17, 19), list(range(62, 100))),
}
_LONE_SURROGATES = ("\ud800", "\udfff")
#: Two endings that code points and UTF-16 code units order differently: U+FF5E before
#: U+1F600 by code point, after its surrogates D83D DE00 by code unit.
_DISPUTED_ENDINGS = ("\uff5e", "\U0001f600")
#: The stem those endings extend is drawn up to this many UTF-8 bytes.
_STEM_BYTES = 16


def keyword_breakages(context: Context, document: dict[str, Any]) -> Iterator[Breakage]:
    for site in sites(document, context.schema):
        if isinstance(site.value, dict):
            yield from _object_breakages(context, site)
        if site.location:
            yield from _value_breakages(context, site)
    yield from _oversize(context)


def _breakage(context, site_schema, keyword, location, description, apply):
    rule = context.rule_for(site_schema, keyword)
    if rule is None:
        return []
    return [Breakage(location, rule, description, _keeping_order(context, location, apply))]


def _keeping_order(context: Context, location: Location, apply: Apply) -> Apply:
    """``apply``, then the item it changed moved to its place if its list must stay sorted.

    Otherwise a family_refs item one byte too long would break XREF-009 as well.
    """
    parent = location[:-1]
    if not (location and isinstance(location[-1], int)):
        return apply
    if not schema_at(context.schema, parent).get("x-sortedUnique"):
        return apply

    def apply_in_order(draw: Draw, document: dict[str, Any]) -> Location | None:
        apply(draw, document)
        items = value_at(document, parent)
        changed, rest = items[location[-1]], items[: location[-1]] + items[location[-1] + 1 :]
        if not isinstance(changed, str):
            return None  # the order is of strings only: the others still are in order
        assume(changed not in rest)
        at = bisect.bisect_left([utf16_key(item) for item in rest], utf16_key(changed))
        items[:] = [*rest[:at], changed, *rest[at:]]
        return (*parent, at)

    return apply_in_order


def _oversize(context: Context) -> list[Breakage]:
    limit = context.spec.contract["argument_max_bytes"]

    def apply(draw: Draw, document: dict[str, Any]) -> None:
        document[_fresh_name(draw, document)] = "0" * limit

    description = "an object over the argument limit (the padding is also an extra property, "
    description += "but the size is checked first)"
    return _breakage(context, {}, "argument_size", (), description, apply)


def _fresh_name(draw: Draw, members: dict[str, Any]) -> str:
    return draw(st.text(max_size=16).filter(lambda name: name not in members))


def _object_breakages(context: Context, site: Site) -> Iterator[Breakage]:
    schema, location = site.schema, site.location
    named = schema.get("properties", {})

    def extra(draw: Draw, document: dict[str, Any]) -> Location:
        name = _fresh_name(draw, named)
        value_at(document, location)[name] = draw(st.one_of(*_OF_TYPE.values()))
        return (*location, name)  # the name is drawn here, so is the offending location

    yield from _breakage(
        context, schema, "additionalProperties", location, "an extra property", extra
    )
    for name in schema.get("required", ()):
        if name in site.value:
            yield from _breakage(
                context,
                schema,
                "required",
                (*location, name),
                "a missing field",
                _deleting((*location, name)),
            )
    for name in named:
        if name not in site.value:
            yield from _breakage(
                context,
                {},
                "null",
                (*location, name),
                "null for an absent optional field",
                _setting((*location, name), st.none()),
            )


def _deleting(location: Location) -> Apply:
    return lambda draw, document: delete_at(document, location)


def _setting(location: Location, values: st.SearchStrategy[Any]) -> Apply:
    return lambda draw, document: set_at(document, location, draw(values))


def _value_breakages(context: Context, site: Site) -> Iterator[Breakage]:
    schema, location = site.schema, site.location
    yield from _breakage(context, {}, "null", location, "null", _setting(location, st.none()))
    if "type" in schema:
        accepted = _ACCEPTS.get(schema["type"], {schema["type"]})
        others = st.one_of(*(s for name, s in _OF_TYPE.items() if name not in accepted))
        yield from _breakage(
            context,
            schema,
            "type",
            location,
            "a value of another type",
            _setting(location, others),
        )
    for keyword in ("enum", "const"):
        if keyword in schema:
            yield from _outside(context, site, keyword)
    if isinstance(site.value, str):
        yield from _string_breakages(context, site)
    if isinstance(site.value, int | float) and not isinstance(site.value, bool):
        yield from _range_breakages(context, site)
    if isinstance(site.value, list):
        yield from _list_breakages(context, site)


def _outside(context: Context, site: Site, keyword: str) -> list[Breakage]:
    allowed = site.schema["enum"] if keyword == "enum" else [site.schema["const"]]
    same_type = st.text() if isinstance(allowed[0], str) else st.integers()
    values = same_type.filter(lambda value: value not in allowed)
    return _breakage(
        context,
        site.schema,
        keyword,
        site.location,
        f"a value outside the {keyword}",
        _setting(site.location, values),
    )


def _string_breakages(context: Context, site: Site) -> Iterator[Breakage]:
    schema, location = site.schema, site.location
    nfc = schema.get("x-nfc", False)
    if schema.get("x-minBytes", 0) > 0:
        size = schema["x-minBytes"] - 1
        yield from _breakage(
            context,
            schema,
            "x-minBytes",
            location,
            f"a string of {size} UTF-8 bytes",
            _text_of(location, size, nfc),
        )
    if "x-maxBytes" in schema:
        size = schema["x-maxBytes"] + 1
        yield from _breakage(
            context,
            schema,
            "x-maxBytes",
            location,
            f"a string of {size} UTF-8 bytes",
            _text_of(location, size, nfc),
        )
    if nfc:
        low = schema.get("x-minBytes", 0)
        high = schema.get("x-maxBytes", low + UNBOUNDED_STRING_BYTES)
        yield from _breakage(
            context,
            schema,
            "x-nfc",
            location,
            "a string not in NFC",
            lambda draw, document: set_at(document, location, draw_not_nfc(draw, low, high)),
        )
    if "pattern" in schema:
        yield from _breakage(
            context,
            schema,
            "pattern",
            location,
            "a string missing its pattern",
            _missing_pattern(location, schema["pattern"]),
        )
    if schema.get("x-instant"):
        yield from _breakage(
            context,
            schema,
            "x-instant",
            location,
            "an Instant of no real calendar",
            _unreal_instant(location),
        )
    if schema.get("minLength", 0) > 0:
        yield from _breakage(
            context,
            schema,
            "minLength",
            location,
            "a string below its minLength",
            _setting(location, st.just("0" * (schema["minLength"] - 1))),
        )
    yield from _breakage(
        context,
        {},
        "x-unicode",
        location,
        "a lone surrogate",
        lambda draw, document: set_at(
            document,
            location,
            draw_insertion(draw, site.value, draw(st.sampled_from(_LONE_SURROGATES))),
        ),
    )


def _text_of(location: Location, size: int, nfc: bool) -> Apply:
    return lambda draw, document: set_at(document, location, draw_text(draw, size, nfc=nfc))


def _missing_pattern(location: Location, pattern: str) -> Apply:
    matcher = SpecValidator({"pattern": pattern})

    def apply(draw: Draw, document: dict[str, Any]) -> None:
        _, edit = draw(st.sampled_from(_PATTERN_EDITS))
        edited = edit(value_at(document, location))
        assume(not matcher.is_valid(edited))
        set_at(document, location, edited)

    return apply


def _unreal_instant(location: Location) -> Apply:
    def apply(draw: Draw, document: dict[str, Any]) -> None:
        where, values = _UNREAL_FIELDS[draw(st.sampled_from(sorted(_UNREAL_FIELDS)))]
        text = value_at(document, location)
        unreal = f"{text[: where.start]}{draw(st.sampled_from(values)):02d}{text[where.stop :]}"
        set_at(document, location, unreal)

    return apply


def _range_breakages(context: Context, site: Site) -> Iterator[Breakage]:
    for keyword, step in (("minimum", -1), ("maximum", 1)):
        if keyword in site.schema:
            value = site.schema[keyword] + step
            yield from _breakage(
                context,
                site.schema,
                keyword,
                site.location,
                f"the integer {value}",
                _setting(site.location, st.just(value)),
            )


def _list_breakages(context: Context, site: Site) -> Iterator[Breakage]:
    schema, location = site.schema, site.location
    low, high = schema.get("minItems", 0), schema.get("maxItems")
    if low > 0:
        yield from _breakage(
            context,
            schema,
            "minItems",
            location,
            f"a list of {low - 1} items",
            lambda draw, document: set_at(document, location, site.value[: low - 1]),
        )
    if high is not None:
        yield from _breakage(
            context,
            schema,
            "maxItems",
            location,
            f"a list of {high + 1} items",
            lambda draw, document: _grow(draw, document, site, high + 1),
        )
    if schema.get("uniqueItems"):
        yield from _breakage(
            context,
            schema,
            "uniqueItems",
            location,
            "a repeated item",
            lambda draw, document: _repeat(draw, value_at(document, location), high),
        )
    if schema.get("x-sortedUnique"):
        yield from _breakage(
            context,
            schema,
            "x-sortedUnique",
            location,
            "two items out of order by code points and by UTF-16 code units",
            lambda draw, document: _swap(draw, document, site),
        )
        yield from _breakage(
            context,
            schema,
            UTF16_ORDER,
            location,
            "a list sorted by code points, not by UTF-16 code units",
            lambda draw, document: _code_point_order(draw, document, site),
        )
        yield from _breakage(
            context,
            schema,
            "x-sortedUnique",
            location,
            "a repeated item",
            lambda draw, document: _repeat_sorted(draw, document, site, high),
        )


def _grow(draw: Draw, document: dict[str, Any], site: Site, count: int) -> None:
    """Grow the list at ``site`` to ``count`` items, sorted if the schema says so.

    Items of a distinct list are drawn; others are copies of the first item, which cost no
    draws: 257 drawn citations would overflow Hypothesis's buffer of choices.
    """
    items = value_at(document, site.location)
    budget = Budget(FILLER_BYTES)
    distinct = site.schema.get("uniqueItems") or site.schema.get("x-sortedUnique")
    while len(items) < count:
        if distinct or not items:
            items.append(draw_distinct(draw, site.schema["items"], budget, items))
        else:
            items.append(copy.deepcopy(items[0]))
    if site.schema.get("x-sortedUnique"):
        items.sort(key=utf16_key)


def _repeat(draw: Draw, items: list[Any], high: int | None) -> None:
    """Repeat an item: appended as a copy, or over the last item when the list is full."""
    full = high is not None and len(items) >= high
    copied = copy.deepcopy(items[draw(st.integers(0, len(items) - (2 if full else 1)))])
    if full:
        items[-1] = copied
    else:
        items.append(copied)


def _swap(draw: Draw, document: dict[str, Any], site: Site) -> None:
    """Swap two neighbours that code points order as UTF-16 code units do: the list is then
    out of order under both (so under UTF-8 bytes too), not only under the spec's order."""
    _grow(draw, document, site, max(2, len(site.value)))
    items = value_at(document, site.location)
    agreeing = [at for at in range(len(items) - 1) if items[at] < items[at + 1]]
    assume(agreeing)
    at = draw(st.sampled_from(agreeing))
    items[at], items[at + 1] = items[at + 1], items[at]


def _code_point_order(draw: Draw, document: dict[str, Any], site: Site) -> None:
    """Two items that end in ``_DISPUTED_ENDINGS`` added (in place of others, when the list is
    full), and the list sorted by code points: UTF-16 code-unit order then refuses it."""
    items = value_at(document, site.location)
    bounds = site.schema["items"]
    room = bounds.get("x-maxBytes", _STEM_BYTES + 4) - max(map(utf8_size, _DISPUTED_ENDINGS))
    size = draw(st.integers(max(0, bounds.get("x-minBytes", 0) - 3), min(room, _STEM_BYTES)))
    nfc = bounds.get("x-nfc", False)
    stem = draw_text(draw, size, nfc=nfc)
    disputed = [stem + ending for ending in _DISPUTED_ENDINGS]
    assume(not nfc or all(unicodedata.is_normalized("NFC", item) for item in disputed))
    kept = [item for item in items if item not in disputed]
    high = site.schema.get("maxItems")
    if high is not None:
        kept = kept[: high - len(disputed)]
    items[:] = sorted([*kept, *disputed])


def _repeat_sorted(draw: Draw, document: dict[str, Any], site: Site, high: int | None) -> None:
    _grow(draw, document, site, max(2, len(site.value)))
    items = value_at(document, site.location)
    at = draw(st.integers(0, len(items) - 2))
    if high is None or len(items) < high:
        items.insert(at + 1, items[at])
    else:
        items[at + 1] = items[at]
