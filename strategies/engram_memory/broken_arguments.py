"""Argument objects broken by exactly one rule, labelled as the spec's ``examples/`` label theirs.

``broken_arguments(tool)`` draws a valid object (``values``), lists every way to break it by one
rule (``keyword_breakages``, ``reference_breakages``), draws a rule and then one breakage of
that rule (so that a rule with one site, such as a dangling primary component, is as likely as
one with many, such as an opaque reference's bounds), and applies it to a copy. The label is
what ``validate_arguments`` must answer: the rule, its error code, and the JSON Pointer of the
offending value (for a missing field, where it should be); ``clock_dependent`` marks an object
that breaks its rule only against the clock.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from engram_conformance.spec.engram_memory import Spec, load, resolve_pointer
from engram_conformance.spec.pointers import to_pointer
from hypothesis import strategies as st

from .breakage import Breakage, Context
from .keyword_breakages import keyword_breakages
from .reference_breakages import reference_breakages
from .values import argument_objects

_INVALID_SCHEMA = "INVALID_SCHEMA"


@dataclass(frozen=True)
class Broken:
    """An argument object that breaks ``rule``, answered ``code`` at ``pointer``.

    ``answered_first_by`` is the JSON-RPC error a server answers instead, over the wire, when an
    earlier check of the call fails first (a purpose_ref string that is not the bound purpose:
    -32603), as the spec's ``examples/`` say with ``answered_first_by``. A purpose_ref that is no
    string, or is missing, is labelled by the schema (INVALID_SCHEMA); since the seed makes any
    purpose mismatch a protocol refusal, the checks that send such an object also take -32603
    for its rule (``conformance.checks.argument_sending.prepare``).
    """

    arguments: dict[str, Any]
    rule: str
    code: str
    pointer: str
    description: str
    clock_dependent: bool = False
    answered_first_by: int | None = None


def broken_arguments(tool: str, spec: Spec | None = None) -> st.SearchStrategy[Broken]:
    """Argument objects for ``tool`` broken by exactly one rule, with their labels."""
    spec = spec or load()
    # Half the argument limit, so that no breakage (a 65,537-byte text, a 257th citation) can
    # push the object over the limit, which is checked first and would decide instead.
    valid = argument_objects(spec, tool, spec.contract["argument_max_bytes"] // 2)
    return valid.flatmap(lambda arguments: broken_from(tool, arguments, spec))


def broken_from(
    tool: str,
    arguments: dict[str, Any],
    spec: Spec | None = None,
    *,
    rules: Collection[str] | None = None,
) -> st.SearchStrategy[Broken]:
    """``arguments`` (valid) broken by one rule; only rules among ``rules`` when given."""
    spec = spec or load()
    catalogue = breakages(spec, tool, arguments)
    if rules is not None:
        catalogue = [b for b in catalogue if b.rule in rules]
    by_rule: dict[str, list[Breakage]] = {}
    for breakage in catalogue:
        by_rule.setdefault(breakage.rule, []).append(breakage)
    if not by_rule:
        return st.nothing()
    chosen = st.sampled_from(list(by_rule.values())).flatmap(st.sampled_from)
    return chosen.flatmap(lambda breakage: _applied(spec, tool, arguments, breakage))


def breakages(spec: Spec, tool: str, arguments: dict[str, Any]) -> list[Breakage]:
    """Every breakage of ``arguments`` this package knows."""
    context = Context(spec, spec.input_validator(tool).schema)
    return [*keyword_breakages(context, arguments), *reference_breakages(context, arguments)]


def _applied(
    spec: Spec, tool: str, arguments: dict[str, Any], breakage: Breakage
) -> st.SearchStrategy[Broken]:
    @st.composite
    def applied(draw: Any) -> Broken:
        document = copy.deepcopy(arguments)
        location = breakage.apply(draw, document) or breakage.location
        pointer = to_pointer(location)
        return Broken(
            arguments=document,
            rule=breakage.rule,
            code=spec.rules[breakage.rule].error_code or _INVALID_SCHEMA,
            pointer=pointer,
            description=f"{breakage.description} at {pointer or 'the root'}",
            clock_dependent=breakage.clock_dependent,
            answered_first_by=_answered_first_by(spec, tool, document, pointer),
        )

    return applied()


def _answered_first_by(spec: Spec, tool: str, document: Any, pointer: str) -> int | None:
    """-32603 when the offending value is a purpose_ref string: the purpose check comes first."""
    purpose = spec.tools[tool].purpose_argument
    if purpose is None or pointer != purpose:
        return None
    try:
        offending = resolve_pointer(document, pointer)
    except LookupError:
        return None
    if not isinstance(offending, str):
        return None
    return next(
        code
        for code, error in spec.protocol_errors.items()
        if any("purpose_ref" in case for case in error.when)
    )
