"""What every tool handler receives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram_conformance.spec.engram_memory import Spec

from ..context import InvocationContext
from ..policy import HostPolicy
from ..sealing import Sealer
from ..store import Scope, Store


@dataclass(frozen=True)
class Call:
    """One call that passed the protocol, schema and confirmation checks."""

    tool: str
    arguments: dict[str, Any]
    context: InvocationContext
    now_ms: int
    spec: Spec
    store: Store
    sealer: Sealer
    policy: HostPolicy

    @property
    def scope(self) -> Scope:
        return self.context.scope
