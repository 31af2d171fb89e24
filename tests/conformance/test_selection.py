"""What ``--only`` runs: the checks of the rules it names, and what their per-call checks need."""

from __future__ import annotations

from pathlib import Path

from engram_conformance.conformance.engram_memory.checks.registry import (
    EVERY_TOOL,
    all_per_call,
    checks,
)
from engram_conformance.conformance.runner import RunOptions, selected

from .inprocess import run_against


def test_a_rule_only_per_call_checks_decide_selects_the_checks_that_provoke_them() -> None:
    [judge] = [p for p in all_per_call().values() if "ENV-007" in p.rules]
    chosen = {check.id for check in selected(checks(), RunOptions(only=("ENV-007",)))}
    assert chosen == set(judge.provoked_by) == {EVERY_TOOL}


def test_a_rule_only_per_call_checks_decide_is_decided(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("ENV-007",))
    assert result.verdicts["ENV-007"].verdict == "pass"


def test_the_server_is_discovered_when_no_check_is_selected(tmp_path: Path) -> None:
    """A selection of untestable rules runs no check, and still reads the server's tools: it is
    not reported as a server without the six tools."""
    result = run_against(tmp_path, only=("AGENT-001",))
    assert result.verdicts["AGENT-001"].verdict == "not_applicable"
    assert len(result.tools_listed) == 6
