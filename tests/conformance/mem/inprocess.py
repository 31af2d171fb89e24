"""Run the harness against the mem reference server in this process (with its default dedupe
window), optionally with a mutant answering in place of its MCP handlers
(``tests/mutants/mem/catalog/*.py``)."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import anyio
from engram_conformance.conformance.mem.plugin import CONTRACT
from engram_conformance.conformance.mem.settings import Policy
from engram_conformance.conformance.runner import RunOptions, RunResult, run
from engram_conformance.conformance.targets.launch import InProcessTarget
from engram_conformance.reference_impl.mem.project import current_project
from engram_conformance.reference_impl.mem.server import Handlers, build_server
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.serving import DEFAULT_DEDUPE_WINDOW_S

#: the current project of the server in this process (no working folder names it)
PROJECT = "conformance-inprocess"
#: the dedupe window the reference serves with by default
DEDUPE_WINDOW = timedelta(seconds=DEFAULT_DEDUPE_WINDOW_S)


def run_against(
    state_dir: Path,
    *,
    wiring_mutant: type[Handlers] | None = None,
    target_policy: Policy | None = None,
    claim: tuple[str, ...] | None = None,
    only: tuple[str, ...] = (),
    seed: int = 1,
    dedupe_window_s: float | None = None,
    profile: str = "quick",
) -> RunResult:
    """The harness's result for the mem reference (its handlers mutated as asked), served with
    ``dedupe_window_s`` as its window when given (and the policy saying so), the target
    claiming ``claim`` (None: the default claim)."""
    spec = CONTRACT.load_spec()
    window = DEDUPE_WINDOW if dedupe_window_s is None else timedelta(seconds=dedupe_window_s)
    service = MemService(state_dir, current_project(PROJECT, state_dir), window)
    server = build_server(service, wiring_mutant)
    target = InProcessTarget("mem-reference-in-process", lambda: server, state_dir)
    host = CONTRACT.host(spec, secrets.token_hex(3))
    options = RunOptions(profile=profile, only=only, seed=seed, claim=claim)
    if dedupe_window_s is not None:
        target_policy = replace(target_policy or Policy(), dedupe_window_s=dedupe_window_s)
    try:
        return anyio.run(run, target, CONTRACT, spec, target_policy or Policy(), host, options)
    finally:
        service.close()
