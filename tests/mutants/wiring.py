"""Mutants of the reference's MCP wiring, and how a test plants any kind of mutant.

The wiring (``reference_impl.server``) stands between the protocol and the memory service: it
asks the host binding to admit a call, then carries the service's envelope in a tool result. A
wiring mutant is a subclass of its handlers with one step altered; ``plant`` installs it for the
test (``build_server`` then builds the mutant's handlers), as it passes a service or binding
mutant to ``run_against``.
"""

from __future__ import annotations

from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory import server
from engram_conformance.reference_impl.engram_memory.binding import HostBinding

from ..conformance.inprocess import ServiceProxy


class WiringMutant(server._Handlers):
    """Base of wiring mutants: the reference's tools/list and tools/call handlers, unless a
    subclass alters one step."""


def plant(monkeypatch: pytest.MonkeyPatch, mutant: type) -> dict[str, Any]:
    """The ``run_against`` arguments that plant ``mutant`` (a wiring mutant is installed here,
    for the test's duration, and needs none)."""
    if issubclass(mutant, WiringMutant):
        monkeypatch.setattr(server, "_Handlers", mutant)
        return {}
    if issubclass(mutant, HostBinding):
        return {"binding_mutant": mutant}
    assert issubclass(mutant, ServiceProxy), mutant
    return {"service_mutant": mutant}
