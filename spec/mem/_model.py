"""Typed, immutable views of the mem spec's catalogues."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..rules import RuleHead, source_fields

#: How a quote joins passages of the seed that are not next to each other.
QUOTE_GAP = " … "


def normalized(text: str) -> str:
    """``text`` with every run of whitespace as one space: quotes and statements are compared so."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Rule(RuleHead):
    """A rule of the catalogue; ``source_document`` is ``seed``, ``upstream`` or ``design``."""

    untestable_reason: str | None = None
    notes: str = ""
    #: the seed's own words the rule rests on (every must and seed-sourced rule quotes them)
    source_quote: str | None = None
    #: what upstream's code does instead, for a seed statement it contradicts
    divergence: str | None = None
    #: tool -> the arguments the rule needs in that tool's published schema
    requires: dict[str, tuple[str, ...]] = field(default_factory=dict)
    protocol_error: int | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        rest = {k: v for k, v in data.items() if k not in ("source", "tools", "requires")}
        return cls(
            **source_fields(data),
            requires={tool: tuple(names) for tool, names in data.get("requires", {}).items()},
            **rest,
        )

    @property
    def passages(self) -> tuple[str, ...]:
        """The passages of the seed the quote joins, whitespace normalised."""
        if self.source_quote is None:
            return ()
        return tuple(normalized(part) for part in self.source_quote.split(QUOTE_GAP))


@dataclass(frozen=True)
class Evidence:
    """How one item of a reconstructed line is known."""

    evidence: Literal["fixture", "reconstructed"]
    source: str


@dataclass(frozen=True)
class LineTool:
    """One tool as a version line publishes it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]
    defer_loading: bool
    profile: Literal["agent", "admin"]
    #: JSON Pointer inside the tool entry ('' = the whole tool) -> its evidence
    evidence: dict[str, Evidence] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LineTool:
        return cls(
            name=data["name"],
            description=data["description"],
            input_schema=data["inputSchema"],
            annotations=data["annotations"],
            defer_loading=data["defer_loading"],
            profile=data["profile"],
            evidence={p: Evidence(**e) for p, e in data.get("evidence", {}).items()},
        )

    @property
    def properties(self) -> dict[str, dict[str, Any]]:
        return self.input_schema["properties"]

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(self.input_schema["required"])

    def reconstructed(self, pointer: str) -> bool:
        """Whether the item at ``pointer``, or the whole tool, is known only indirectly."""
        return any(
            item.evidence == "reconstructed"
            and (at == "" or pointer == at or pointer.startswith(at + "/"))
            for at, item in self.evidence.items()
        )


@dataclass(frozen=True)
class ToolLine:
    """The tools of one upstream version line (``tools/<version>.json``)."""

    version: str
    source: dict[str, str]
    tools: dict[str, LineTool]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolLine:
        tools = {t["name"]: LineTool.from_dict(t) for t in data["tools"]}
        return cls(version=data["version"], source=dict(data["source"]), tools=tools)

    @property
    def exact(self) -> bool:
        return self.source["evidence"] == "exact"


@dataclass(frozen=True)
class MemTool:
    """A tool of the contract: the union of the version lines, described by the newest line
    that lists it."""

    name: str
    summary: str
    #: the version lines that list the tool, oldest first
    lines: tuple[str, ...]
    #: whether seed 003 names the tool
    seed: bool
    input_schema: dict[str, Any]
    annotations: dict[str, Any]


@dataclass(frozen=True)
class SeedStatement:
    """One paragraph, list, table or example of seed 003, verbatim."""

    id: str
    section: str
    text: str

    def holds(self, passage: str) -> bool:
        """Whether a (normalised) passage of a quote lies in this statement."""
        return passage in normalized(self.text)
