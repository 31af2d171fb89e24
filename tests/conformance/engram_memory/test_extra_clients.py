"""Clients of a check's own over stdio (each a server process of its own on the same state):
the reference keeps one effect per key across its processes, and a server that cannot start a
second process gets error verdicts with the evidence, not a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
from engram_conformance.conformance.engram_memory.host import Host
from engram_conformance.conformance.engram_memory.plugin import CONTRACT
from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.conformance.launching import launched
from engram_conformance.conformance.runner import RunOptions, RunResult, run
from engram_conformance.conformance.targets.descriptor import TargetDescriptor
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.spec.engram_memory import load

from ..inprocess import checks_only

EXCLUSIVE = str(Path(__file__).parents[1] / "fixtures" / "exclusive_server.py")
RULES = ("IDEM-012", "IDEM-013")
CHECKS = (
    "retry_after_a_closed_transport_takes_effect_once",
    "identical_calls_over_several_sessions_take_effect_once",
)


def run_over_stdio(descriptor: TargetDescriptor) -> RunResult:
    spec = load()
    signer = ContextSigner(spec)
    host = Host(spec, signer, "extra")
    options = RunOptions(profile="full", only=RULES)
    with launched(descriptor, host, CONTRACT) as target, checks_only(*CHECKS):
        policy = CONTRACT.settings.parse(descriptor.tables)
        return anyio.run(run, target, CONTRACT, spec, policy, host, options)


def test_the_reference_keeps_one_effect_per_key_across_its_processes() -> None:
    result = run_over_stdio(reference_descriptor())
    assert {rule: result.verdicts[rule].verdict for rule in RULES} == dict.fromkeys(RULES, "pass")


def test_a_server_that_keeps_its_state_to_one_process_gets_error_verdicts() -> None:
    command = (sys.executable, EXCLUSIVE, "{state_dir}", "{host_public_key_file}")
    result = run_over_stdio(TargetDescriptor(name="exclusive", transport="stdio", command=command))
    for rule in RULES:
        verdict = result.verdicts[rule]
        assert verdict.verdict == "error"
        assert "the server faulted: an extra client could not be opened" in (verdict.reason or "")
        assert "is in use" in (verdict.reason or "")
