"""What both contracts' rule catalogues share: the levels, the fields every rule starts with, and
how a catalogue entry's ``source`` and ``tools`` become a rule's fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["must", "should", "profile"]


@dataclass(frozen=True)
class RuleHead:
    """The fields every contract's rule starts with, in this order; each contract's ``Rule``
    adds its own after them."""

    id: str
    family: str
    level: Level
    statement: str
    #: which document the rule rests on (each contract names the documents it allows)
    source_document: str
    source_section: str
    tools: tuple[str, ...]
    testable: bool
    #: the statement speaks of each of its tools the server lists (every listed tool), so one
    #: the server does not list is no part of it; otherwise it needs them all
    tools_each: bool = False


def source_fields(data: dict[str, Any]) -> dict[str, Any]:
    """A catalogue entry's ``source`` and ``tools`` as the rule's fields."""
    return {
        "source_document": data["source"]["document"],
        "source_section": data["source"]["section"],
        "source_quote": data["source"].get("quote"),
        "tools": tuple(data["tools"]),
    }
