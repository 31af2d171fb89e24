"""The toy contract's spec: one tool, one rule (what the core reads of a spec)."""

from __future__ import annotations

from dataclasses import dataclass

ECHO = "toy_echo"


@dataclass(frozen=True)
class ToyRule:
    id: str
    level: str
    statement: str
    tools: tuple[str, ...]
    testable: bool = True
    tools_each: bool = False
    untestable_reason: str | None = None
    source_document: str = "design"
    source_section: str = "The toy contract"

    @property
    def family(self) -> str:
        return self.id.split("-")[0]


@dataclass(frozen=True)
class ToySpec:
    rules: dict[str, ToyRule]
    tools: dict[str, object]


SPEC = ToySpec(
    rules={
        "TOY-001": ToyRule("TOY-001", "must", "toy_echo answers the text it was sent.", (ECHO,))
    },
    tools={ECHO: object()},
)
