"""The mem contract (seed 003's ``mem_*`` protocol) as the harness core's plug-in
(``conformance.contracts``)."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engram_conformance.spec.mem import PACKAGED_ROOT, MemSpec, SpecFileError, load
from engram_conformance.spec.mem.docs import markdown
from engram_conformance.spec.mem.lint import Problem, lint
from engram_conformance.spec.mem.openapi import openapi

from ..check_registry import Checks
from ..session import Session
from ..spec_digest import spec_identity
from ..transcripts import Replayed
from .checks import registry
from .checks.context import MemContext
from .transcript_replay import replay


class MemHost:
    """The mem protocol has no host binding: the harness signs nothing, its host only names the
    run, and a descriptor's ``{host_public_key_file}`` has no key to name."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id

    def write_public_key(self, path: Path) -> None:
        return None


#: the dedupe window ``run --reference`` starts the mem reference with: short enough for DEDUP-005
#: to wait it out, long enough for every other check's repeated saves to fall inside it
REFERENCE_DEDUPE_WINDOW_S = 6


class Mem:
    name = "mem"
    discovery_check = registry.DISCOVERY
    no_tools = "no mem tools discovered: the server lists none of the mem_* tools"
    reference_arguments = ("--dedupe-window-s", str(REFERENCE_DEDUPE_WINDOW_S))
    reference_policy = MappingProxyType({"dedupe_window_s": REFERENCE_DEDUPE_WINDOW_S})
    spec_root = PACKAGED_ROOT
    spec_file_error = SpecFileError
    docs_page = "docs/spec/mem.md"

    def load_spec(self, root: Path | None = None) -> MemSpec:
        return load(root)

    def lint(self, root: Path, seed_text: str | None) -> Iterator[Problem]:
        return lint(root, seed_text)

    def spec_summary(self, spec: MemSpec) -> str:
        return (
            f"{len(spec.rules)} rules, {len(spec.tools)} tools in {len(spec.lines)} version "
            f"lines, {len(spec.statements)} seed statements"
        )

    def markdown(self, spec: MemSpec) -> str:
        return markdown(spec)

    def openapi(self, spec: MemSpec) -> dict[str, Any]:
        return openapi(spec)

    def identity(self, spec: MemSpec) -> dict[str, str]:
        return spec_identity(spec)

    def conformance_class(self, spec: MemSpec, offered: list[str]) -> tuple[str, str]:
        """Full when the server offers every tool seed 003 names."""
        missing = [tool for tool in spec.seed_tools if tool not in offered]
        if not missing:
            return "full", "Full mem conformance class (the twelve tools of seed 003)"
        return "partial", f"Partial mem conformance class (without {', '.join(missing)})"

    def checks(self) -> Checks:
        return registry.checks()

    def recognises(self, tools: Collection[str]) -> bool:
        return bool(set(tools) & set(load().tools))

    def default_claim(self, spec: MemSpec, listed: Collection[str]) -> tuple[str, ...]:
        """The twelve tools seed 003 names, and the version lines' other tools the server
        lists: upstream's extra tools are optional, so a rule needing an absent one is not
        applicable, while a missing seed tool is an error of the rules needing it."""
        optional = [tool for tool in spec.tools if tool in listed and tool not in spec.seed_tools]
        return (*spec.seed_tools, *optional)

    def host(self, spec: MemSpec, run_id: str) -> MemHost:
        return MemHost(run_id)

    def context(self, host: MemHost, **shared: Any) -> MemContext:
        return MemContext(**shared)

    async def replay(
        self, session: Session, host: MemHost, entries: list[dict[str, Any]]
    ) -> list[Replayed]:
        """Each call sent again (``transcript_replay``): the ids the server issues mapped, its
        times masked."""
        return await replay(session, entries)


CONTRACT = Mem()
