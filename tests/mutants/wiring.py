"""Mutants of the reference's MCP wiring, and how a test plants any kind of mutant.

The wiring (``reference_impl.server``) stands between the protocol and the memory service: it
asks the host binding to admit a call, then carries the service's envelope in a tool result. A
wiring mutant is a subclass of its ``Handlers`` with one step altered, which ``build_server``
builds in their stead; ``plant`` gives ``run_against`` any kind of mutant.
"""

from __future__ import annotations

from typing import Any

import pytest
from engram_conformance.reference_impl.binding import HostBinding
from engram_conformance.reference_impl.server import Handlers

from ..conformance.inprocess import ServiceProxy


class WiringMutant(Handlers):
    """Base of wiring mutants: the reference's tools/list and tools/call handlers, unless a
    subclass alters one step."""


def plant(monkeypatch: pytest.MonkeyPatch, mutant: type) -> dict[str, Any]:
    """The ``run_against`` arguments that plant ``mutant``."""
    if issubclass(mutant, WiringMutant):
        return {"wiring_mutant": mutant}
    if issubclass(mutant, HostBinding):
        return {"binding_mutant": mutant}
    assert issubclass(mutant, ServiceProxy), mutant
    return {"service_mutant": mutant}
