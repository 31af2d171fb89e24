"""The engram-memory contract as the harness core's plug-in (``conformance.contracts``)."""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory import PACKAGED_ROOT, Spec, SpecFileError, load
from engram_conformance.spec.engram_memory.docs import render_markdown
from engram_conformance.spec.engram_memory.lint import iter_problems
from engram_conformance.spec.engram_memory.openapi import openapi_document

from ..contracts import Contract
from ..session import Session
from ..transcripts import Replayed
from .checks import families, registry
from .checks.context import CheckContext
from .host import Host
from .settings import SETTINGS
from .signed_meta import ContextSigner
from .transcript_replay import replay

#: HOST-020 (the claimed tools are listed) decides a server that lists none of the six tools
DISCOVERY_CHECK = "claimed_tools_are_listed"


def _spec_summary(spec: Spec) -> str:
    return (
        f"{len(spec.rules)} rules, {len(spec.errors)} error codes, "
        f"{len(spec.states)} states, {len(spec.transitions)} transitions, "
        f"{len(spec.examples)} examples"
    )


def _conformance_class(spec: Spec, offered: list[str]) -> tuple[str, str]:
    if len(offered) == len(spec.tools):
        return "full", "Full conformance class (all six tools)"
    names = ", ".join(tool.removeprefix("engram_memory_") for tool in offered)
    return "partial", f"Partial conformance class ({names})"


def _host(spec: Spec, run_id: str) -> Host:
    return Host(spec, ContextSigner(spec), run_id)


def _context(host: Host, **shared: Any) -> CheckContext:
    return CheckContext(host=host, **shared)


async def _replay(session: Session, host: Host, entries: list[dict[str, Any]]) -> list[Replayed]:
    """Each call sent again with a context signed for this run (``transcript_replay``)."""
    return await replay(session, host.signer, entries)


CONTRACT: Contract[Spec] = Contract(
    name="engram-memory",
    load_spec=load,
    spec_root=PACKAGED_ROOT,
    spec_file_error=SpecFileError,
    # in their run order; the registry is read when asked, so that a test may narrow it
    checks=lambda: registry.checks().in_order(families.RUN_ORDER),
    discovery_check=DISCOVERY_CHECK,
    model_check="lifecycle_model_holds",
    no_tools="no Engram memory tools discovered: the server lists none of the six tools",
    markdown=render_markdown,
    docs_page="docs/contract.md",
    openapi=openapi_document,
    lint=iter_problems,
    spec_summary=_spec_summary,
    conformance_class=_conformance_class,
    host=_host,
    context=_context,
    replay=_replay,
    settings=SETTINGS,
    rules_file="spec/engram_memory/rules.json",
)
