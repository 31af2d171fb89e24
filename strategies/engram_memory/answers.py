"""The answer vocabulary: what the lifecycle machine and the idempotency, delivery, gate and
scope checks read of an answer (a replay's effect and receipt, whether it says it is a replay or
a first result, a search's record ids), on any ``Answer``, the harness's ``Observation`` among
them.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Protocol

from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE, FORGET, WITHDRAW

from . import envelopes

#: What a replay of withdraw or forget repeats of the first receipt, as the seed has it
#: (IDEM-004): the transition.
RECEIPT_FIELDS = ("operation", "from_state", "to_state")
#: What identifies the first receipt, which this kit also has a replay repeat (IDEM-015).
RECEIPT_IDENTITY = ("event_id", "event_digest")
#: The tools whose answers carry a receipt.
RECEIPT_TOOLS = (WITHDRAW, FORGET)


class Answer(Protocol):
    """What the machine reads of an answer (the harness's ``Observation`` is one): how it came
    (``result`` or ``protocol_error``), its structured content, its JSON-RPC error code. The
    envelope in them is read by ``envelopes``."""

    @property
    def outcome(self) -> str: ...
    @property
    def structured(self) -> Any: ...
    @property
    def error_code(self) -> int | None: ...


def field(value: Any, name: str) -> dict[str, Any]:
    """The object ``value[name]``, or an empty one."""
    item = value.get(name) if isinstance(value, dict) else None
    return item if isinstance(item, dict) else {}


def effect(tool: str, answer: Answer) -> Any:
    """What the seed has a replay of ``answer`` answer again: capture's candidate_id,
    request_admission's (status, candidate_id, record_id), withdraw's and forget's
    (operation, from_state, to_state). Not the receipt's identity: see ``receipt_identity``."""
    value = envelopes.value(answer)
    if tool == CAPTURE:
        return value.get("candidate_id")
    if tool == ADMIT:
        outcome = field(value, "outcome")
        return tuple(outcome.get(name) for name in ("status", "candidate_id", "record_id"))
    return tuple(field(value, "receipt").get(name) for name in RECEIPT_FIELDS)


def receipt_identity(answer: Answer) -> tuple[Any, ...]:
    """The (event_id, event_digest) of ``answer``'s receipt."""
    receipt = field(envelopes.value(answer), "receipt")
    return tuple(receipt.get(name) for name in RECEIPT_IDENTITY)


def repeats_receipt(tool: str, answer: Answer, first: Answer) -> bool:
    """Whether ``answer`` repeats the identity of ``first``'s receipt (IDEM-015); true for a
    tool whose answers carry no receipt."""
    return tool not in RECEIPT_TOOLS or receipt_identity(answer) == receipt_identity(first)


def says_replay(tool: str, answer: Answer) -> bool:
    """A success that says it is a replay: duplicate_exact, or replayed true."""
    if tool == CAPTURE:
        return envelopes.ok(answer) and envelopes.value(answer).get("status") == "duplicate_exact"
    return envelopes.ok(answer) and envelopes.value(answer).get("replayed") is True


def says_first(tool: str, answer: Answer) -> bool:
    """A success that says it is a first result: committed_pending, or replayed false."""
    if tool == CAPTURE:
        return envelopes.ok(answer) and envelopes.value(answer).get("status") == "committed_pending"
    return envelopes.ok(answer) and envelopes.value(answer).get("replayed") is False


def is_replay_of(tool: str, answer: Answer, first: Answer) -> bool:
    """A replay that answers the effect of ``first`` (``effect``: the receipt's identity is
    not compared)."""
    return says_replay(tool, answer) and effect(tool, answer) == effect(tool, first)


def comparable(answer: Answer) -> Any:
    """The answer with its auditId left out (the one field allowed to differ)."""
    if envelopes.envelope(answer) is None:
        return ("not an envelope", envelopes.code(answer))
    return {name: value for name, value in envelopes.envelope(answer).items() if name != "auditId"}


def record_ids(answer: Answer) -> list[Any]:
    """The record ids of a search answer's packets, in order (one that cannot be a set member,
    such as a list, as its repr)."""
    packets = envelopes.value(answer).get("records")
    ids = [field(p, "record").get("record_id") for p in packets or []]
    return [i if isinstance(i, Hashable) else repr(i) for i in ids]
