"""The spec's own JSON Schema keywords, added to Draft 2020-12.

JSON Schema counts characters and knows nothing of Unicode normalization, so the spec states
UTF-8 byte bounds, NFC and the other contract encodings with ``x-`` keywords enforced here.
``x-rules``, ``x-crossReferences`` and ``x-clock`` are data read by ``_arguments``; the
validator ignores them like any annotation.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Hashable, Iterator
from datetime import datetime
from functools import cache
from itertools import pairwise
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators


def _utf8_length(text: str) -> int | None:
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return None  # an unpaired surrogate: the argument pre-check reports it


def min_bytes(validator: Any, bound: int, instance: Any, schema: Any) -> Iterator[ValidationError]:
    length = _utf8_length(instance) if isinstance(instance, str) else None
    if length is not None and length < bound:
        yield ValidationError(f"{length} UTF-8 bytes, fewer than {bound}")


def max_bytes(validator: Any, bound: int, instance: Any, schema: Any) -> Iterator[ValidationError]:
    length = _utf8_length(instance) if isinstance(instance, str) else None
    if length is not None and length > bound:
        yield ValidationError(f"{length} UTF-8 bytes, more than {bound}")


def nfc(validator: Any, required: bool, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if required and isinstance(instance, str) and not unicodedata.is_normalized("NFC", instance):
        yield ValidationError("not in Unicode normalization form C")


def instant(
    validator: Any, required: bool, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """A string of the Instant pattern must also name a real calendar instant (no 2026-02-30)."""
    if not (required and isinstance(instance, str)):
        return
    try:
        datetime.strptime(instance, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        if _ecma_regex(schema.get("pattern", "")).search(instance):  # else pattern reports it
            yield ValidationError(f"{instance!r} is not a real calendar instant")


def utf16_key(text: str) -> bytes:
    """Sort key of UTF-16 code-unit order, the order JCS uses for object keys."""
    return text.encode("utf-16-be", "surrogatepass")


#: The part of ``x-sortedUnique`` that only UTF-16 code-unit order decides: a list strictly
#: ascending by code points (so by UTF-8 bytes too) that is not by UTF-16 code units. Its errors
#: carry this name as their keyword, so that ``x-rules`` name its rule apart from the rule of
#: repeats and of lists that no usual order sorts.
UTF16_ORDER = "x-sortedUnique.utf16"


def sorted_unique(
    validator: Any, required: bool, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not (required and isinstance(instance, list)):
        return
    texts = [item for item in instance if isinstance(item, str)]
    for before, after in pairwise(texts):
        if utf16_key(before) >= utf16_key(after):
            break
    else:
        return
    if len(set(texts)) == len(texts) and all(a < b for a, b in pairwise(texts)):
        message = "sorted by code points, but not by UTF-16 code units"
        yield ValidationError(message, validator=UTF16_ORDER)
        return
    yield ValidationError(f"{after!r} does not sort strictly after {before!r}")


@cache
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    """Compile a schema pattern with ECMA-262 meaning, as JSON Schema defines it.

    In Python ``$`` also matches before a final newline and ``\\d`` matches any Unicode digit;
    in ECMA-262 neither does. A trailing unescaped ``$`` becomes ``\\Z`` and classes are ASCII.
    """
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern, re.ASCII)


def ecma_pattern(
    validator: Any, pattern: str, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if isinstance(instance, str) and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _identity(value: Any) -> Hashable:
    """A hashable key that is equal for two JSON values exactly when JSON Schema holds them
    equal: numbers by value (1 is 1.0, never true), objects whatever their key order."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, int | float):
        return ("number", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_identity(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _identity(item)) for key, item in value.items()))
    return ("other", repr(value))


def _answered_by_max_items(instance: list[Any], schema: Any) -> bool:
    """Whether an array over its ``maxItems`` gets that error first, at the same place, so that
    looking for repeats in it (linear, but thousands of items) can tell nothing more."""
    keywords = list(schema)
    return len(instance) > schema.get("maxItems", len(instance)) and keywords.index(
        "maxItems"
    ) < keywords.index("uniqueItems")


def unique_items(
    validator: Any, required: bool, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """``uniqueItems`` in time linear in the array: each item's identity is hashed once.
    jsonschema's own compares every pair of items that do not sort (objects, mixed types),
    which lets one argument at the size bound hold a server for seconds."""
    if not (required and isinstance(instance, list)) or _answered_by_max_items(instance, schema):
        return
    seen: dict[Hashable, int] = {}
    for index, item in enumerate(instance):
        first = seen.setdefault(_identity(item), index)
        if first != index:
            yield ValidationError(f"items {first} and {index} are equal: non-unique elements")
            return


def items_until_decided(
    decides: Callable[[ValidationError], bool],
) -> Callable[..., Iterator[ValidationError]]:
    """``items`` for arguments, whose answer is their first deciding failure in document order.

    An array over its ``maxItems`` is answered by that bound, which ranks before anything inside
    it, so its items are not looked at; otherwise the items are validated in order until one
    fails with a deciding error, since no later item's failure can rank before that one. Failures
    that do not decide (``decides`` false: a digest form, answered after every schema failure)
    let the next items be validated. So one argument at the size bound costs a few items'
    validation, not every item's, and yields no more errors than the schema's bounds allow.
    """
    every_item = Draft202012Validator.VALIDATORS["items"]

    def items(
        validator: Any, subschema: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError]:
        if not isinstance(instance, list) or subschema is False or "prefixItems" in schema:
            yield from every_item(validator, subschema, instance, schema)
            return
        bound = schema.get("maxItems")
        if bound is not None and len(instance) > bound:
            over = ValidationError("", validator="maxItems", instance=instance, schema=schema)
            if decides(over):
                return
        for index, item in enumerate(instance):
            decided = False
            for error in validator.descend(item, subschema, path=index):
                decided = decided or decides(error)
                yield error
            if decided:
                return

    return items


SpecValidator = validators.extend(
    Draft202012Validator,
    {
        "pattern": ecma_pattern,
        "uniqueItems": unique_items,
        "x-minBytes": min_bytes,
        "x-maxBytes": max_bytes,
        "x-nfc": nfc,
        "x-instant": instant,
        "x-sortedUnique": sorted_unique,
    },
)
