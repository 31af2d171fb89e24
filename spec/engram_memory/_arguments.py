"""``validate_arguments``: the contract's answer to a tool's arguments, and the rule behind it.

The checks run in the order of DESIGN.md's "Order of checks on a call" (rule SCHEMA-011):
the argument object is valid JSON and within its byte limit, then the schema (the first failing
field in the arguments as sent decides), then the capture cross-references, then digest forms,
and last, when a clock is given, the checks against the clock.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import rfc8785
from jsonschema import ValidationError

from ..instants import wall_clock_ms
from ..pointers import Location, to_pointer
from ._crossref import Breach, clock_breaches, cross_reference_breaches
from ._spec import INVALID_SCHEMA, Spec


@dataclass(frozen=True)
class ArgumentVerdict:
    """The answer to one argument object: ``ok``, or the error code and the rule that failed.

    ``pointer`` locates the offending value (for a missing field, the field it should be at);
    ``detail`` says what is wrong, for people: it is not the contract's constant message.
    """

    code: str | None = None
    rule: str | None = None
    pointer: str = ""
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.code is None


ACCEPTED = ArgumentVerdict()


def validate_arguments(
    spec: Spec,
    tool: str,
    arguments: Any,
    *,
    clock: Callable[[], int] | None = wall_clock_ms,
) -> ArgumentVerdict:
    """Decide ``arguments`` for ``tool``; ``clock`` gives epoch ms (None: no clock checks)."""
    keyword_rules = spec.contract["keyword_rules"]
    schema = spec.schema(spec.tool(tool).input_schema)
    size = _canonical_size(arguments)
    if size is None:
        location, detail = _first_non_json(arguments) or ((), "not JSON")
        return _verdict(spec, keyword_rules["x-unicode"], location, detail)
    if size > spec.contract["argument_max_bytes"]:
        detail = f"the argument object is {size} bytes in canonical form"
        return _verdict(spec, keyword_rules["argument_size"], (), detail)
    errors = spec.argument_validator(tool).iter_errors(arguments)
    ranked = sorted((_schema_failure(spec, schema, arguments, e) for e in errors), key=_position)
    failures = [verdict for _, verdict in ranked]
    structural = [f for f in failures if f.code == INVALID_SCHEMA]
    if structural:
        return structural[0]
    for breach in cross_reference_breaches(arguments, schema.get("x-crossReferences", [])):
        return _breach_verdict(spec, breach)
    if failures:
        return failures[0]
    return ACCEPTED if clock is None else check_clock(spec, tool, arguments, clock())


def check_clock(spec: Spec, tool: str, arguments: Any, now_ms: int) -> ArgumentVerdict:
    """The checks against the clock alone, for arguments that passed ``validate_arguments``.

    A server runs them after replay detection (DESIGN.md, Order of checks on a call).
    """
    schema = spec.schema(spec.tool(tool).input_schema)
    for breach in clock_breaches(arguments, schema.get("x-clock", []), now_ms):
        return _breach_verdict(spec, breach)
    return ACCEPTED


def _verdict(spec: Spec, rule: str, location: Location, detail: str) -> ArgumentVerdict:
    code = spec.rules[rule].error_code or INVALID_SCHEMA
    return ArgumentVerdict(code=code, rule=rule, pointer=to_pointer(location), detail=detail)


def _breach_verdict(spec: Spec, breach: Breach) -> ArgumentVerdict:
    return _verdict(spec, breach.rule, breach.location, breach.detail)


def _position(ranked: tuple[tuple[int, ...], ArgumentVerdict]) -> tuple[int, ...]:
    return ranked[0]


def _first_non_json(value: Any, location: Location = ()) -> tuple[Location, str] | None:
    """The first string with an unpaired surrogate or non-finite number, depth first."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return location, "the string holds an unpaired surrogate"
    elif isinstance(value, float) and not math.isfinite(value):
        return location, f"{value} is not a finite number"
    elif isinstance(value, dict):
        for key, item in value.items():
            found = _first_non_json(key, location) or _first_non_json(item, (*location, key))
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if found := _first_non_json(item, (*location, index)):
                return found
    return None


def _canonical_size(arguments: Any) -> int | None:
    """The UTF-8 bytes of ``arguments`` in JCS form, or None when they are not JSON (a lone
    surrogate, a non-finite number: ``_first_non_json`` says where).

    JCS writes strings and integers as compact JSON does and orders keys, which does not change
    the length; only floats are written otherwise. So the size is that of the compact text
    (written by the C encoder), corrected for each float that the C parser finds in it: linear,
    and many times faster than writing JCS itself for the arguments near the limit.
    """
    try:
        text = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        size = len(text.encode("utf-8"))
    except (ValueError, UnicodeEncodeError):
        return None
    floats: list[str] = []
    json.loads(text, parse_float=floats.append)
    return size + sum(len(_jcs_number(float(number))) - len(number) for number in floats)


def _jcs_number(number: float) -> bytes:
    try:
        return rfc8785.dumps(number)
    except rfc8785.CanonicalizationError:  # beyond what JCS writes; the schema refuses it
        return repr(number).encode()


def _schema_failure(
    spec: Spec, schema: dict[str, Any], arguments: Any, error: ValidationError
) -> tuple[tuple[int, ...], ArgumentVerdict]:
    """The verdict for one schema error, with its position in the arguments as sent."""
    location = tuple(error.absolute_path)
    rule = spec.schema_error_rule(error)
    if error.validator == "additionalProperties":
        named = error.schema.get("properties", {})
        location = (*location, next(k for k in error.instance if k not in named))
    position = _document_order(arguments, location)
    if error.validator == "required":  # a missing field ranks where its object was sent
        location = (*location, next(k for k in error.validator_value if k not in error.instance))
    return position, _verdict(spec, rule, location, error.message)


def _document_order(arguments: Any, location: Location) -> tuple[int, ...]:
    """Sort key of a location: the index of each step among the keys or items as sent."""
    order, current = [], arguments
    for step in location:
        order.append(list(current).index(step) if isinstance(current, dict) else int(step))
        current = current[step]
    return tuple(order)
