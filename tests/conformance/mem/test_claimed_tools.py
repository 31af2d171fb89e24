"""DISC-003: a descriptor that claims nothing claims the twelve tools seed 003 names, not every
tool of the upstream lines; one that names its tools is held to them."""

from __future__ import annotations

from pathlib import Path

from engram_conformance.conformance.targets.descriptor import Policy

from .inprocess import run_against


def test_the_default_claim_is_the_seed_tools(tmp_path: Path) -> None:
    """The reference lists no mem_compare (a v1.20.0 tool); claiming nothing, it passes."""
    result = run_against(tmp_path, only=("DISC-003",))
    assert "mem_compare" in result.tools_claimed and "mem_compare" not in result.tools_listed
    assert result.verdicts["DISC-003"].verdict == "pass"


def test_a_claimed_tool_not_listed_breaks_the_rule(tmp_path: Path) -> None:
    claimed = Policy(tools=("mem_save", "mem_compare"))
    result = run_against(tmp_path, target_policy=claimed, only=("DISC-003",))
    assert result.verdicts["DISC-003"].verdict == "warn"
    [failure] = result.ledger.evidence["DISC-003"].failures
    assert failure.expected == "mem_compare in tools/list"
