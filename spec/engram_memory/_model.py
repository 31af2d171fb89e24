"""Typed, immutable views of the spec's catalogues."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..rules import RuleHead, source_fields


@dataclass(frozen=True)
class Tool:
    name: str
    short_name: str
    kind: str
    summary: str
    idempotency_key: bool
    confirmation: Literal["never", "always", "host_policy"]
    input_schema: str
    output_schema: str
    target: str | None = None
    purpose_argument: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Tool:
        return cls(**data)


@dataclass(frozen=True)
class ErrorCode:
    code: str
    retriable: bool
    action: str
    tools: tuple[str, ...]
    message: str
    description: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ErrorCode:
        return cls(**{**data, "tools": tuple(data["tools"])})


@dataclass(frozen=True)
class ProtocolError:
    code: int
    message: str
    when: tuple[str, ...]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProtocolError:
        return cls(code=data["code"], message=data["message"], when=tuple(data["when"]))


@dataclass(frozen=True)
class State:
    name: str
    kind: Literal["candidate", "record"]
    terminal: bool
    visible_to_search: bool
    visible_to_get: bool
    description: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> State:
        return cls(**data)


@dataclass(frozen=True)
class Transition:
    operation: str
    from_state: str | None
    to_state: str
    actor: Literal["agent", "host"]
    tool: str | None = None
    outcome: str | None = None
    notes: str = ""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transition:
        rest = {k: v for k, v in data.items() if k not in ("from", "to")}
        return cls(from_state=data["from"], to_state=data["to"], **rest)


@dataclass(frozen=True)
class Rule(RuleHead):
    """A rule of the catalogue; ``source_document`` is ``seed`` or ``design``."""

    error_code: str | None = None
    protocol_error: int | None = None
    untestable_reason: str | None = None
    notes: str = ""
    #: the seed's own words the rule rests on (every ``must`` rule quotes them)
    source_quote: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        rest = {k: v for k, v in data.items() if k not in ("source", "tools")}
        return cls(**source_fields(data), **rest)


@dataclass(frozen=True)
class Limit:
    name: str
    description: str
    unit: Literal["bytes", "items", "integer", "seconds"]
    min: int | None = None
    max: int | None = None
    default: int | None = None
    at: tuple[str, ...] = field(default=())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Limit:
        return cls(**{**data, "at": tuple(data.get("at", ()))})


@dataclass(frozen=True)
class Example:
    """One labelled argument object of ``examples/``; ``rule`` is None for a valid example."""

    tool: str
    name: str
    description: str
    arguments: dict[str, Any]
    rule: str | None = None
    code: str | None = None
    pointer: str | None = None
    clock_dependent: bool = False
    answered_first_by: dict[str, Any] | None = None

    @property
    def valid(self) -> bool:
        return self.rule is None
