"""The mem contract (seed 003's ``mem_*`` protocol) as the harness core's plug-in
(``conformance.contracts``)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from engram_conformance.spec.mem import PACKAGED_ROOT, MemSpec, SpecFileError, load
from engram_conformance.spec.mem.docs import markdown
from engram_conformance.spec.mem.lint import lint
from engram_conformance.spec.mem.openapi import openapi

from ..contracts import Contract, UnboundHost
from ..session import Session
from ..transcripts import Replayed
from .checks import families, registry
from .checks.context import MemContext
from .settings import SETTINGS
from .transcript_replay import replay


def _spec_summary(spec: MemSpec) -> str:
    return (
        f"{len(spec.rules)} rules, {len(spec.tools)} tools in {len(spec.lines)} version "
        f"lines, {len(spec.statements)} seed statements"
    )


def _conformance_class(spec: MemSpec, offered: list[str]) -> tuple[str, str]:
    """Full when the server offers every tool seed 003 names."""
    missing = [tool for tool in spec.seed_tools if tool not in offered]
    if not missing:
        return "full", "Full mem conformance class (the twelve tools of seed 003)"
    return "partial", f"Partial mem conformance class (without {', '.join(missing)})"


def _default_claim(spec: MemSpec, listed: Collection[str]) -> tuple[str, ...]:
    """The twelve tools seed 003 names, and the version lines' other tools the server lists:
    upstream's extra tools are optional, so a rule needing an absent one is not applicable,
    while a missing seed tool is an error of the rules needing it."""
    optional = [tool for tool in spec.tools if tool in listed and tool not in spec.seed_tools]
    return (*spec.seed_tools, *optional)


def _context(host: UnboundHost, **shared: Any) -> MemContext:
    return MemContext(**shared)


async def _replay(
    session: Session, host: UnboundHost, entries: list[dict[str, Any]]
) -> list[Replayed]:
    """Each call sent again (``transcript_replay``): the ids the server issues mapped, its
    times masked. The mem protocol has no host binding: its host signs nothing."""
    return await replay(session, entries)


CONTRACT: Contract[MemSpec] = Contract(
    name="mem",
    load_spec=load,
    spec_root=PACKAGED_ROOT,
    spec_file_error=SpecFileError,
    # in their run order; the registry is read when asked, so that a test may narrow it
    checks=lambda: registry.checks().in_order(families.RUN_ORDER),
    discovery_check=registry.DISCOVERY,
    model_check="observations_follow_the_model",
    no_tools="no mem tools discovered: the server lists none of the mem_* tools",
    markdown=markdown,
    docs_page="docs/spec/mem.md",
    openapi=openapi,
    lint=lint,
    spec_summary=_spec_summary,
    conformance_class=_conformance_class,
    default_claim=_default_claim,
    context=_context,
    replay=_replay,
    settings=SETTINGS,
    rules_file="spec/mem/rules.json",
)
