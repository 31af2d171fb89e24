"""Run the harness against the reference server in this process, optionally through a mutant.

A mutant (``tests/mutants/engram_memory/base.py``) wraps the reference's ``MemoryService`` or its
``HostBinding``, or answers in place of its MCP handlers, and alters one behaviour; the
reference's own code carries no fault switch. ``run_against`` returns the run's result, whose
verdicts the tests read.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from engram_conformance.conformance import contracts
from engram_conformance.conformance.document import build_document
from engram_conformance.conformance.engram_memory.checks import registry
from engram_conformance.conformance.engram_memory.checks.model_check import lifecycle_model_holds
from engram_conformance.conformance.engram_memory.checks.registry import REGISTRY, all_checks
from engram_conformance.conformance.engram_memory.host import Host
from engram_conformance.conformance.engram_memory.plugin import CONTRACT
from engram_conformance.conformance.engram_memory.settings import Policy
from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.conformance.runner import Progress, RunOptions, RunResult, run
from engram_conformance.conformance.targets.launch import InProcessTarget
from engram_conformance.reference_impl.engram_memory.binding import HostBinding
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.server import Handlers, build_server
from engram_conformance.reference_impl.engram_memory.service import MemoryService
from engram_conformance.reports.document import ReportDocument
from engram_conformance.spec.engram_memory import load

Wrap = Callable[[Any], Any]


def run_against(
    state_dir: Path,
    *,
    service_mutant: Wrap | None = None,
    binding_mutant: Wrap | None = None,
    session_mutant: Wrap | None = None,
    wiring_mutant: type[Handlers] | None = None,
    server_policy: HostPolicy | None = None,
    target_policy: Policy | None = None,
    only: tuple[str, ...] = (),
    profile: str = "quick",
    seed: int = 1,
    recheck: bool = True,
    progress: Progress | None = None,
    costs: Mapping[str, float] | None = None,
) -> RunResult:
    """The harness's result for the reference (mutated as asked), in-process.

    ``session_mutant`` wraps the service anew for each client (MCP session) the harness opens,
    as a server process of its own would over stdio; it must serialize its calls itself."""
    spec = load()
    signer = ContextSigner(spec)
    service: Any = MemoryService(state_dir, server_policy or HostPolicy(), spec=spec)
    if service_mutant is not None:
        service = service_mutant(service)
    binding: Any = HostBinding(signer.public_key(), spec=spec)
    if binding_mutant is not None:
        binding = binding_mutant(binding)
    # One server for every client, as over HTTP: its handlers serialize the service's calls
    # (one SQLite connection), also those of a check's extra clients.
    server = build_server(service, binding, handlers=wiring_mutant)

    def serve() -> Any:
        if session_mutant is None:
            return server
        return build_server(session_mutant(service), binding, handlers=wiring_mutant)

    target = InProcessTarget("reference-in-process", serve, state_dir)
    host = Host(spec, signer, "t" + state_dir.name[-6:].replace("_", ""))
    options = RunOptions(profile=profile, only=only, seed=seed, recheck=recheck, costs=costs)
    try:
        return anyio.run(
            run, target, CONTRACT, spec, target_policy or Policy(), host, options, progress
        )
    finally:
        (service.inner if hasattr(service, "inner") else service).close()


@contextmanager
def checks_only(*names: str) -> Iterator[None]:
    """Only the checks ``names`` are registered while the block lasts: a test of one check
    need not run every other check of its rules (the model check takes seconds)."""
    every = all_checks()
    REGISTRY.clear()
    REGISTRY.update({name: every[name] for name in names})
    try:
        yield
    finally:
        REGISTRY.clear()
        REGISTRY.update(every)


def broken_verdict(rule: str, contract: str = contracts.DEFAULT) -> str:
    """The verdict of a broken rule of ``contract``: ``fail`` for a must, ``warn`` for should
    and profile."""
    return (
        "fail" if contracts.contract(contract).load_spec().rules[rule].level == "must" else "warn"
    )


def in_process_document(
    result: RunResult, options: RunOptions, transcript_paths: dict[str, str] | None = None
) -> ReportDocument:
    """The report document of an in-process run of the six-tool reference (``run_against``)."""
    target = SimpleNamespace(name="reference-in-process", transport="in-process", negotiated=None)
    return build_document(
        load(),
        result,
        options,
        target,  # type: ignore[arg-type]
        descriptor=None,
        command="in-process",
        baseline=None,
        transcript_paths=transcript_paths or {},
    )


def without_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register every check but the lifecycle machine's, for a test of the reference whose
    rules the machine also decides: the machine's search of the reference (the costliest check
    of the full profile) is shown to hold once, by
    ``test_the_machine_finds_nothing_in_the_reference``, not again in each family's test."""
    machine = lifecycle_model_holds.__name__
    checks = all_checks()
    monkeypatch.setattr(registry, "REGISTRY", {n: c for n, c in checks.items() if n != machine})


def command(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``engram-conformance ARGUMENTS`` run in this process (in ``cwd``, if given), as the
    executable would run it: its exit code, standard output and error. A test that is about
    the commands' results, not about their process (signals, the environment, what a process
    leaves behind), runs them here: the executable's start (Python, the SDK's models) costs
    more than a short run itself, and the suite makes hundreds of runs."""
    from click.testing import CliRunner
    from engram_conformance.conformance.cli.app import main

    with pytest.MonkeyPatch.context() as patch:
        if cwd is not None:
            patch.chdir(cwd)
        done = CliRunner().invoke(main, list(arguments), prog_name="engram-conformance")
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return subprocess.CompletedProcess(
        ["engram-conformance", *arguments], done.exit_code, done.stdout, done.stderr
    )
