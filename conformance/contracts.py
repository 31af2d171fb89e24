"""The registry of contracts: the one way the harness core reaches a protocol's plug-in.

A contract names the module of its plug-in here; the module's ``CONTRACT`` gives what the core
needs (``Contract``). Nothing else in the core imports a contract's modules, so a new protocol
is its own sub-packages plus one entry in ``CONTRACTS``.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from .check_registry import Checks

#: contract name -> the module of its plug-in (imported when the contract is first used)
CONTRACTS: dict[str, str] = {
    "engram-memory": "engram_conformance.conformance.engram_memory.plugin",
    "mem": "engram_conformance.conformance.mem.plugin",
}
#: the contract a run reports under when the server lists none of any contract's tools
DEFAULT = "engram-memory"


class ContractSpec(Protocol):
    """What the core reads of a contract's loaded spec."""

    @property
    def rules(self) -> Mapping[str, Any]: ...  # id -> rule: id, family, level, statement,

    # source_document, source_section, tools, testable, untestable_reason

    @property
    def tools(self) -> Mapping[str, Any]: ...  # the contract's tool names


class Contract(Protocol):
    """A protocol's plug-in."""

    #: the name reports, baselines, SARIF and pytest items carry
    name: str
    #: the check that runs when the server lists none of the contract's tools (its discovery)
    discovery_check: str
    #: why every other rule is then not applicable
    no_tools: str
    #: what ``engram-reference serve --contract NAME`` needs besides ``--state-dir``
    reference_arguments: tuple[str, ...]
    #: what those arguments make the reference promise: its descriptor's ``[policy]`` table
    reference_policy: Mapping[str, Any]
    #: the spec folder shipped with the kit, and the error a bad one raises
    spec_root: Path
    spec_file_error: type[Exception]
    #: where ``spec docs`` writes the contract's Markdown reference
    docs_page: str

    def load_spec(self, root: Path | None = None) -> Any:
        """The contract's spec, from ``root`` (default: the one shipped with the kit)."""

    def lint(self, root: Path, seed_text: str | None) -> Iterable[Any]:
        """Every problem of a spec folder (``.file``, ``.pointer``, ``.message``)."""

    def spec_summary(self, spec: Any) -> str:
        """What a sound spec holds, in a few words (``spec lint``'s last line)."""

    def markdown(self, spec: Any) -> str:
        """The contract's Markdown reference, generated from its spec."""

    def openapi(self, spec: Any) -> dict[str, Any]:
        """The contract as an OpenAPI 3.1 document (one POST operation per tool)."""

    def identity(self, spec: Any) -> dict[str, str]:
        """``contract_version``, ``spec_version`` and ``digest`` (sha256 of the spec's files),
        for the report's ``spec``."""

    def conformance_class(self, spec: Any, offered: list[str]) -> tuple[str, str]:
        """``partial`` or ``full`` and its words, for a server offering (listing and claiming)
        ``offered``, at least one of the contract's tools."""

    def checks(self) -> Checks:
        """Its scripted and per-call checks."""

    def recognises(self, tools: Collection[str]) -> bool:
        """Whether a server listing ``tools`` speaks this contract."""

    def default_claim(self, spec: Any, listed: Collection[str]) -> tuple[str, ...]:
        """The tools a target whose descriptor claims none is taken to claim, when the server
        lists ``listed``: those the contract's text requires, and the optional ones it lists."""

    def host(self, spec: Any, run_id: str) -> Any:
        """The host the harness plays for one run (opaque to the core); it has
        ``write_public_key(path)`` for the descriptor's ``{host_public_key_file}``."""

    def context(self, host: Any, **shared: Any) -> Any:
        """A check's context: ``check_context.BaseContext``'s arguments plus the host."""

    async def replay(self, session: Any, host: Any, entries: list[dict[str, Any]]) -> list[Any]:
        """Send a transcript's calls again, re-bound to this run; a ``transcripts.Replayed``
        per call."""


class UnknownContract(ValueError):
    """A contract name no plug-in has."""


def names() -> list[str]:
    return list(CONTRACTS)


def contract(name: str) -> Contract:
    """The plug-in of ``name``; UnknownContract names the known ones."""
    if name not in CONTRACTS:
        known = ", ".join(CONTRACTS)
        raise UnknownContract(f"unknown contract {name!r}: this kit knows {known}")
    plugin: Contract = importlib.import_module(CONTRACTS[name]).CONTRACT
    return plugin


def recognised(tools: Collection[str]) -> Contract | None:
    """The first contract whose tools the server lists, if any."""
    for name in CONTRACTS:
        found = contract(name)
        if found.recognises(tools):
            return found
    return None
