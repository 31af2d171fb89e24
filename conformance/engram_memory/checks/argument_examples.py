"""The labelled examples the argument checks send: which ones, and the rules each decides.

The cases are the spec's labelled examples (``examples/``). Each invalid example must be refused
as an argument error, recorded against its labelled rule: with its labelled code or the other
code of the seed table's row (INVALID_SCHEMA, INVALID_DIGEST), SCHEMA-035 judging which. Each
valid example must not be refused INVALID_SCHEMA or INVALID_DIGEST, recorded against the rule
that bounds the fields it sets (``_valid_rules``). Examples that the purpose check answers first
(HOST) and those that depend on the clock (RET) are left to their families.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any

from engram_conformance.spec.engram_memory import UTF16_ORDER, Example, Spec, load
from engram_conformance.spec.pointers import Location, to_pointer
from engram_conformance.strategies.engram_memory.locations import schema_at

from .context import ARGUMENT_ERRORS, CODE_IN_ROW

#: Rules whose code is exact, not either code of the row: the seed names it ("un campo extra es
#: INVALID_SCHEMA", section 0), so an extra field answered INVALID_DIGEST breaks SCHEMA-001.
EXACT_CODE_RULES = frozenset({"SCHEMA-001"})
#: Rules of an object's shape (closed, no null, required, types, JSON text): they are labelled at
#: every field, so they say nothing about the bounds a valid example sits on.
SHAPE_RULES = frozenset({"SCHEMA-001", "SCHEMA-002", "SCHEMA-003", "SCHEMA-004", "SCHEMA-032"})
UNPAIRED_SURROGATES = "SCHEMA-032"
ZERO_FRACTION = "SCHEMA-033"
NFC = "SCHEMA-006"
#: Bounds the seed gives only as maxima start at zero (an empty attestation, no family_refs).
MAXIMA_START_AT_ZERO = "SCHEMA-038"
#: A valid example whose refusal no single bound explains (it sets several at once).
SEVERAL_BOUNDS = "SCHEMA-039"
#: The profile rules that order the checks of a call: HOST-016 the argument checks before host
#: policy, lookups and search state, GATE-011 before the human approval.
CHECK_ORDER = "HOST-016"
GATE_ORDER = "GATE-011"
KEY = "/idempotency_key"


# examples: selection and what valid ones are about ----------------------------------------------
def _sendable(example: Example) -> bool:
    """Invalid examples judged here: not clock-dependent, not answered by an earlier check."""
    return not example.clock_dependent and example.answered_first_by is None


def base(spec: Spec, tool: str) -> Example:
    return next(e for e in spec.examples if e.tool == tool and e.valid and e.name == "minimal")


def _pattern(pointer: str) -> str:
    """A JSON Pointer with list indices as ``*``, to compare places across examples."""
    return re.sub(r"/\d+(?=/|$)", "/*", pointer)


ABSENT = object()


def _changes(sent: Any, base: Any, location: Location = ()) -> Iterator[tuple[Location, Any]]:
    """Where ``sent`` differs from ``base`` (by JSON type too), with the value sent there.

    A list whose count differs (or that ``base`` lacks) is one place, its items with it: the
    count is what is bounded, and new items differ field by field from nothing. An object
    ``base`` lacks is its members.
    """
    if isinstance(sent, dict) and (isinstance(base, dict) or base is ABSENT):
        known = base if isinstance(base, dict) else {}
        for key, item in sent.items():
            yield from _changes(item, known.get(key, ABSENT), (*location, key))
    elif isinstance(sent, list) and isinstance(base, list) and len(sent) == len(base):
        for index, (item, other) in enumerate(zip(sent, base, strict=True)):
            yield from _changes(item, other, (*location, index))
    elif type(sent) is not type(base) or sent != base:
        yield location, sent


def places(spec: Spec, example: Example) -> list[tuple[Location, Any]]:
    """Where a valid example differs from the tool's minimal one. Examples carry idempotency
    keys of their own: the key counts only when it is the one difference."""
    places = list(_changes(example.arguments, base(spec, example.tool).arguments))
    keyless = [(location, value) for location, value in places if to_pointer(location) != KEY]
    return keyless or places


def _any_string(value: Any, test: Callable[[str], bool]) -> bool:
    if isinstance(value, str):
        return test(value)
    if isinstance(value, dict):
        return any(_any_string(item, test) for item in value.values())
    if isinstance(value, list):
        return any(_any_string(item, test) for item in value)
    return False


def _has_zero_fraction(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_has_zero_fraction(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_zero_fraction(item) for item in value)
    return False


def _labelled(spec: Spec, tool: str) -> dict[str, set[str]]:
    """The rules the tool's invalid examples label, by place (list indices as ``*``)."""
    labelled: dict[str, set[str]] = {}
    for other in spec.examples:
        if other.tool == tool and not other.valid:
            labelled.setdefault(_pattern(other.pointer or ""), set()).add(other.rule or "")
    return labelled


def _lowest(schema: dict[str, Any]) -> int:
    return max(schema.get("x-minBytes", 0), schema.get("minLength", 0), schema.get("minItems", 0))


def _ordinary_text(value: Any, schema: dict[str, Any]) -> bool:
    """Whether a string is one no bound can trip on: ASCII, strictly inside its byte bounds, of
    a field with no enumeration, pattern or calendar (those values are what an example is
    about)."""
    if not isinstance(value, str) or {"enum", "const", "pattern", "x-instant"} & set(schema):
        return False
    size = len(value.encode("utf-8"))
    highest = schema.get("x-maxBytes")
    return value.isascii() and _lowest(schema) < size and (highest is None or size < highest)


def _order_in_dispute(items: list[Any]) -> bool:
    """Whether a list sorted by UTF-16 code units is unsorted by another order a server may use
    (code points, or letters whatever their case)."""
    texts = [item for item in items if isinstance(item, str)]
    return texts != sorted(texts) or texts != sorted(texts, key=str.casefold)


def _list_rules(spec: Spec, schema: dict[str, Any], items: list[Any]) -> set[str]:
    """The rules a valid list breaks if refused: those of the item bounds it sits on, and for a
    sorted list an order other orders dispute, the UTF-16 order's."""
    named = {**spec.contract["keyword_rules"], **schema.get("x-rules", {})}
    rules = {
        named[keyword]
        for keyword in ("minItems", "maxItems")
        if schema.get(keyword) == len(items) and keyword in named
    }
    if schema.get("x-sortedUnique") and _order_in_dispute(items) and UTF16_ORDER in named:
        rules.add(named[UTF16_ORDER])
    return rules


def _place_rules(
    spec: Spec, schema: dict[str, Any], labelled: dict[str, set[str]], place: Location, value: Any
) -> set[str]:
    """The rules a refusal breaks for the value a valid example sets at ``place`` (none when
    the value is ordinary): an empty value of a field bounded only above is SCHEMA-038's; a
    list is judged by its count and order; any other value by the rules the invalid examples
    label at that place, but for those labelled at every place of their kind (shape, NFC)."""
    bounds = schema_at(schema, place)
    bounded_above = "x-maxBytes" in bounds or "maxItems" in bounds
    if value in ("", []) and bounded_above and not _lowest(bounds):
        return {MAXIMA_START_AT_ZERO}
    if isinstance(value, list):
        return _list_rules(spec, bounds, value)
    if _ordinary_text(value, bounds):
        return set()
    rules = labelled.get(_pattern(to_pointer(place)), set()) - SHAPE_RULES - {NFC}
    return {rule for rule in rules if spec.rules[rule].testable}


def _valid_rules(spec: Spec, example: Example) -> set[str]:
    """The rules a refusal of a valid example breaks.

    An example sending a number with a zero fraction is about SCHEMA-033, one sending free text
    that is not NFC about SCHEMA-006 (free text is taken as sent), the minimal one about the
    shape rules. Any other is about the rules common to every place where it differs from the
    minimal one (``_place_rules``; places with ordinary values say nothing): a server refusing
    it broke each of them. An example whose places share none sets several bounds at once, and
    which one a server got wrong cannot be told: SCHEMA-039.
    """
    if _has_zero_fraction(example.arguments):
        return {ZERO_FRACTION}
    if _any_string(example.arguments, lambda s: not unicodedata.is_normalized("NFC", s)):
        return {NFC}
    if example.name == "minimal":
        return set(SHAPE_RULES - {UNPAIRED_SURROGATES})
    schema = spec.input_validator(example.tool).schema
    labelled = _labelled(spec, example.tool)
    said = [
        rules
        for place, value in places(spec, example)
        if (rules := _place_rules(spec, schema, labelled, place, value))
    ]
    common = set.intersection(*said) if said else set()
    return common or {SEVERAL_BOUNDS}


def _in_family(rule: str, family: str) -> bool:
    return rule.startswith(f"{family}-")


def cases(spec: Spec, tool: str, family: str) -> Iterator[tuple[Example, tuple[str, ...]]]:
    """The examples of ``tool`` that decide rules of ``family``, each with those rules."""
    for example in spec.examples:
        if example.tool != tool:
            continue
        if example.valid:
            rules = sorted(r for r in _valid_rules(spec, example) if _in_family(r, family))
        else:
            labelled = example.rule or ""
            rules = [labelled] if _sendable(example) and _in_family(labelled, family) else []
        if rules:
            yield example, tuple(rules)


def example_rules(tool: str, family: str) -> tuple[str, ...]:
    """What the examples check of ``tool`` decides (from the packaged spec): the rules of
    ``family`` its examples decide, then the code of the row, then the order of checks."""
    spec = load()
    found = list(cases(spec, tool, family))
    decided = sorted({rule for _, rules in found for rule in rules})
    row = [
        example.code
        for example, rules in found
        if not example.valid and rules[0] not in EXACT_CODE_RULES
    ]
    extra = [CODE_IN_ROW] if set(row) & set(ARGUMENT_ERRORS) else []
    extra.append(CHECK_ORDER)
    if spec.tools[tool].confirmation != "never":
        extra.append(GATE_ORDER)
    return (*decided, *(rule for rule in extra if rule not in decided))
