"""The toy contract's plug-in: the parts of ``conformance.contracts.Contract`` only it knows (the
defaults give the rest: a host that binds nothing, replay as recorded, every tool claimed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engram_conformance.conformance.check_registry import Checks
from engram_conformance.conformance.contracts import Contract

from . import checks
from .spec import SPEC, ToySpec


def _spec(root: Path | None = None) -> ToySpec:
    return SPEC


def _markdown(spec: ToySpec) -> str:
    return "".join(f"- {rule.id}: {rule.statement}\n" for rule in spec.rules.values())


def _identity(spec: ToySpec) -> dict[str, str]:
    return {"contract_version": "0.1.0", "spec_version": "0.1.0", "digest": "sha256:" + "0" * 64}


def _context(host: Any, **shared: Any) -> checks.ToyContext:
    return checks.ToyContext(**shared)


CONTRACT: Contract[ToySpec] = Contract(
    name="toy",
    load_spec=_spec,
    spec_root=Path(__file__).parent,
    # one family module, so its run order is itself
    checks=lambda: Checks(dict(checks.SCRIPTED), dict(checks.PER_CALL)).in_order([checks]),
    discovery_check="echo_answers_its_text",
    no_tools="no toy tools discovered: the server lists no toy_echo",
    markdown=_markdown,
    docs_page="docs/toy.md",
    openapi=lambda spec: {"openapi": "3.1.0", "paths": {}},
    identity=_identity,
    context=_context,
)
