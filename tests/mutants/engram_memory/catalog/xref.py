"""Servers that get one of capture's cross-references wrong (XREF). Most are lenient: where the
reference refuses a capture for one cross-reference, they repair the payload (drop a repeat or a
dangling id, pick another target, swap an interval's ends) and commit it (``repairs.Repairs``).
"""

from __future__ import annotations

import copy
from typing import Any

from engram_conformance.spec.engram_memory import ArgumentVerdict, utf16_key
from engram_conformance.spec.engram_memory.tool_names import CAPTURE

from ...caught import Caught
from ..base import ServiceProxy
from ..repairs import Repairs, gated_as_sent, parent, value_at

CROSS_REFERENCE_EXAMPLES = "capture_answers_the_labelled_cross_reference_examples"


class DropsItem(Repairs):
    """Base: the list item the reference refuses for ``rule`` is dropped, and the capture goes
    on with the rest."""

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        holder, index = parent(arguments, self.item(verdict.pointer))
        if not isinstance(holder, list) or not isinstance(index, int) or index >= len(holder):
            return None
        del holder[index]
        return arguments

    def item(self, pointer: str) -> str:
        """The pointer of the item to drop: by default the refused value itself."""
        return pointer


class RepeatedCitationsMerged(DropsItem):
    """A citation whose citation_id repeats an earlier one is dropped (deduplicated) instead of
    refused."""

    rule = "XREF-001"

    def item(self, pointer: str) -> str:
        return pointer.removesuffix("/citation_id")


class RepeatedComponentsMerged(DropsItem):
    """A component whose component_id repeats an earlier one is dropped (deduplicated) instead
    of refused."""

    rule = "XREF-002"

    def item(self, pointer: str) -> str:
        return pointer.removesuffix("/component_id")


class DanglingComponentCitationsDropped(DropsItem):
    """A component's citation id that resolves to no citation is dropped instead of refused."""

    rule = "XREF-003"


class DanglingEvidenceCitationsDropped(DropsItem):
    """An evidence citation id that resolves to no citation is dropped instead of refused."""

    rule = "XREF-007"


class DanglingPrimaryComponentIsFirst(Repairs):
    """A primary_component_id that resolves to no component is taken as the first component's."""

    rule = "XREF-004"

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        payload = arguments["payload"]
        first = payload["components"][0]["component_id"]
        if payload["primary_component_id"] == first:
            return None
        payload["primary_component_id"] = first
        return arguments


class DanglingPrimaryEventCitationReplaced(Repairs):
    """A primary_event.citation_id that resolves to no citation is replaced by the primary
    component's first citation."""

    rule = "XREF-005"

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        payload = arguments["payload"]
        primary = next(
            (
                component
                for component in payload["components"]
                if component.get("component_id") == payload["primary_component_id"]
            ),
            None,
        )
        if primary is None or not primary.get("citation_ids"):
            return None
        payload["primary_event"]["citation_id"] = primary["citation_ids"][0]
        return arguments


class ReversedIntervalSwapped(Repairs):
    """A valid_time whose t_end is before t is swapped into order instead of refused."""

    rule = "XREF-008"

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        valid_time = arguments["payload"]["valid_time"]
        valid_time["t"], valid_time["t_end"] = valid_time["t_end"], valid_time["t"]
        return arguments


class FamilyRefsInCodePointOrder(ServiceProxy):
    """family_refs is checked with Python's sorted(), in code-point order, not UTF-16 code-unit
    order: a list sorted by UTF-16 code units but not by code points is refused, and one sorted
    by code points but not by UTF-16 code units is committed. Repeats are still refused."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        refs = _family_refs(arguments) if tool == CAPTURE else None
        if refs is None or len(set(refs)) < len(refs):
            return self.inner.call(tool, arguments, context)
        # The reference's order check (UTF-16, strictly ascending) answers what this one would:
        # the list goes on in UTF-16 order when it is in code-point order, in reverse otherwise.
        in_order = refs == sorted(refs)
        forwarded = copy.deepcopy(arguments)
        sent = sorted(refs, key=utf16_key, reverse=not in_order)
        forwarded["payload"]["reconciliation"]["family_refs"] = sent
        context = gated_as_sent(tool, arguments, forwarded, context)
        return self.inner.call(tool, forwarded, context)


def _family_refs(arguments: Any) -> list[str] | None:
    """The capture's family_refs, when it is a list of strings."""
    refs = value_at(arguments, "/payload/reconciliation/family_refs")
    if isinstance(refs, list) and all(isinstance(ref, str) for ref in refs):
        return refs
    return None


def _by_the_examples(rule: str) -> Caught:
    """``rule`` broken, reported by the cross-reference examples alone."""
    return Caught.reported({rule: CROSS_REFERENCE_EXAMPLES})


#: (mutant, what it breaks). The run covers SCHEMA and XREF.
MUTANTS: list[tuple[type, Caught]] = [
    (RepeatedCitationsMerged, _by_the_examples("XREF-001")),
    (RepeatedComponentsMerged, _by_the_examples("XREF-002")),
    (DanglingComponentCitationsDropped, _by_the_examples("XREF-003")),
    (DanglingPrimaryComponentIsFirst, _by_the_examples("XREF-004")),
    (DanglingPrimaryEventCitationReplaced, _by_the_examples("XREF-005")),
    (DanglingEvidenceCitationsDropped, _by_the_examples("XREF-007")),
    (ReversedIntervalSwapped, _by_the_examples("XREF-008")),
    (FamilyRefsInCodePointOrder, _by_the_examples("XREF-011")),
]
#: Mutants that change what a capture's reconciliation carries: they run against a deployment
#: consenting to the examples' families, so that what they let through is committed.
RECONCILIATION_MUTANTS = {FamilyRefsInCodePointOrder}
