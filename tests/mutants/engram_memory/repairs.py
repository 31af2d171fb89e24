"""Building blocks of the SCHEMA and XREF mutants, and the deployment some of them run against.

Most of these mutants are lenient servers: where the reference refuses a call for one rule at one
place, they "repair" the arguments there (drop a repeat, clamp a number, cut a string) and go on,
so the reference commits what it should have refused (``Repairs``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from engram_conformance.conformance.engram_memory.settings import Policy
from engram_conformance.reference_impl.engram_memory.context import InvocationContext
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.spec.engram_memory import (
    ArgumentVerdict,
    load,
    operation_digest,
    validate_arguments,
)
from engram_conformance.spec.engram_memory.tool_names import CAPTURE

from .base import ServiceProxy

FAMILIES = ("SCHEMA", "XREF")
#: The most places one call is repaired at (each repair fixes one).
MOST_REPAIRS = 300


def examples(*tools: str) -> set[str]:
    """The ids of the checks that send these tools' labelled argument examples."""
    return {f"{tool}_answers_the_labelled_argument_examples" for tool in tools}


def consenting_to_the_examples_families() -> dict[str, Any]:
    """``run_against``'s policies for a deployment that consents to every reconciliation family
    the capture examples name (and says so): a capture that passes the argument checks is then
    committed, not UNAUTHORIZED (which the examples checks charge to HOST-016, the order of
    checks, leaving the example's own rule undecided)."""
    families = frozenset(
        family
        for example in load().examples
        if example.tool == CAPTURE
        for family in value_at(example.arguments, "/payload/reconciliation/family_refs") or []
        if isinstance(family, str)
    )
    return {
        "server_policy": HostPolicy(reconciliation_families=families),
        "target_policy": Policy(reconciliation_families=families),
    }


def strings_mapped(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string value (not to keys)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: strings_mapped(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [strings_mapped(item, change) for item in value]
    return value


def cut(text: str, most_bytes: int) -> str:
    """The longest prefix of ``text`` of at most ``most_bytes`` UTF-8 bytes."""
    return text.encode("utf-8")[:most_bytes].decode("utf-8", "ignore")


def steps(pointer: str) -> list[str]:
    """The unescaped steps of a JSON Pointer."""
    return [step.replace("~1", "/").replace("~0", "~") for step in pointer.split("/")[1:]]


def parent(document: Any, pointer: str) -> tuple[Any, Any]:
    """The container holding the value at ``pointer``, and its key there (an index in a list);
    ``(None, None)`` where the path does not lead to a container."""
    *path, last = steps(pointer)
    for step in path:
        if isinstance(document, list) and step.isdigit() and int(step) < len(document):
            document = document[int(step)]
        elif isinstance(document, dict) and step in document:
            document = document[step]
        else:
            return None, None
    if isinstance(document, list) and last.isdigit():
        return document, int(last)
    return (document, last) if isinstance(document, dict) else (None, None)


def value_at(document: Any, pointer: str) -> Any:
    """The value at ``pointer``, or None where there is none."""
    holder, key = parent(document, pointer)
    if isinstance(holder, list):
        return holder[key] if key < len(holder) else None
    return holder.get(key) if isinstance(holder, dict) else None


def field_name(pointer: str) -> str:
    """The field a pointer names: its last step, or the list's name for a list item."""
    named = [step for step in steps(pointer) if not step.isdigit()]
    return named[-1] if named else ""


def gated_as_sent(
    tool: str, sent: Any, forwarded: Any, context: InvocationContext
) -> InvocationContext:
    """``context`` for the call ``forwarded`` instead of ``sent``: a server that repairs
    arguments checks the human approval against the call as sent, so an approval of ``sent``
    holds for what it goes on with."""
    confirmation = context.confirmation
    if confirmation is None or forwarded == sent:
        return context
    try:
        approved = confirmation.operation_digest == operation_digest(tool, sent)
        bound = operation_digest(tool, forwarded)
    except ValueError:  # no canonical form: the reference decides
        return context
    if not approved:
        return context
    return replace(context, confirmation=replace(confirmation, operation_digest=bound))


class Repairs(ServiceProxy):
    """Base of the lenient mutants: while the reference would refuse the call for ``rule`` and
    ``repair`` knows a fix at the place it names, the arguments are fixed there; the fixed call
    goes on, under the approval of the call as sent."""

    rule: ClassVar[str]

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        forwarded = arguments
        for _ in range(MOST_REPAIRS):
            verdict = validate_arguments(tool, forwarded, clock=None, spec=self.inner.spec)
            if verdict.rule != self.rule:
                break
            fixed = self.repair(tool, copy.deepcopy(forwarded), verdict)
            if fixed is None:
                break
            forwarded = fixed
        context = gated_as_sent(tool, arguments, forwarded, context)
        return self.inner.call(tool, forwarded, context)

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        """``arguments`` (a copy, to change) fixed at ``verdict.pointer``; None: no fix."""
        raise NotImplementedError


class CutTo(Repairs):
    """Base: a string of ``rule`` that ``takes`` accepts is taken, cut to its first ``most``
    UTF-8 bytes (a server storing what it took would keep it whole; the reference needs it
    within bounds)."""

    most: ClassVar[int]

    def takes(self, text: str) -> bool:
        """By default the bound is counted in characters, not UTF-8 bytes."""
        return 0 < len(text) <= self.most

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        holder, key = parent(arguments, verdict.pointer)
        text = value_at(arguments, verdict.pointer)
        if holder is None or not isinstance(text, str) or not self.takes(text):
            return None
        holder[key] = cut(text, self.most)
        return arguments
