"""The engram-memory contract as the harness core's plug-in (``conformance.contracts``)."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engram_conformance.spec.engram_memory import PACKAGED_ROOT, Spec, SpecFileError, load
from engram_conformance.spec.engram_memory.docs import render_markdown
from engram_conformance.spec.engram_memory.lint import Problem, iter_problems
from engram_conformance.spec.engram_memory.openapi import openapi_document

from ..check_registry import Checks
from ..session import Session
from ..spec_digest import spec_identity
from ..transcripts import Replayed
from .checks import registry
from .checks.context import CheckContext
from .host import Host
from .signed_meta import ContextSigner
from .transcript_replay import replay

#: HOST-020 (the claimed tools are listed) decides a server that lists none of the six tools
DISCOVERY_CHECK = "claimed_tools_are_listed"


class EngramMemory:
    name = "engram-memory"
    discovery_check = DISCOVERY_CHECK
    no_tools = "no Engram memory tools discovered: the server lists none of the six tools"
    reference_arguments = ("--host-public-key", "{host_public_key_file}")
    reference_policy = MappingProxyType({})
    spec_root = PACKAGED_ROOT
    spec_file_error = SpecFileError
    docs_page = "docs/contract.md"

    def load_spec(self, root: Path | None = None) -> Spec:
        return load(root)

    def lint(self, root: Path, seed_text: str | None) -> Iterator[Problem]:
        return iter_problems(root, seed_text)

    def spec_summary(self, spec: Spec) -> str:
        return (
            f"{len(spec.rules)} rules, {len(spec.errors)} error codes, "
            f"{len(spec.states)} states, {len(spec.transitions)} transitions, "
            f"{len(spec.examples)} examples"
        )

    def markdown(self, spec: Spec) -> str:
        return render_markdown(spec)

    def openapi(self, spec: Spec) -> dict[str, Any]:
        return openapi_document(spec)

    def identity(self, spec: Spec) -> dict[str, str]:
        return spec_identity(spec)

    def conformance_class(self, spec: Spec, offered: list[str]) -> tuple[str, str]:
        if len(offered) == len(spec.tools):
            return "full", "Full conformance class (all six tools)"
        names = ", ".join(tool.removeprefix("engram_memory_") for tool in offered)
        return "partial", f"Partial conformance class ({names})"

    def checks(self) -> Checks:
        return registry.checks()

    def recognises(self, tools: Collection[str]) -> bool:
        return bool(set(tools) & set(load().tools))

    def default_claim(self, spec: Spec, listed: Collection[str]) -> tuple[str, ...]:
        """Every tool: the six-tool contract has no optional one."""
        return tuple(spec.tools)

    def host(self, spec: Spec, run_id: str) -> Host:
        return Host(spec, ContextSigner(spec), run_id)

    def context(self, host: Host, **shared: Any) -> CheckContext:
        return CheckContext(host=host, **shared)

    async def replay(
        self, session: Session, host: Host, entries: list[dict[str, Any]]
    ) -> list[Replayed]:
        return await replay(session, host.signer, entries)


CONTRACT = EngramMemory()
