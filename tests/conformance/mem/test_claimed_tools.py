"""DISC-003: a descriptor that claims nothing claims the twelve tools seed 003 names, not every
tool of the upstream lines; one that names its tools is held to them."""

from __future__ import annotations

from pathlib import Path

from engram_conformance.spec.mem import load

from .inprocess import run_against


def test_the_default_claim_is_the_seed_tools(tmp_path: Path) -> None:
    """Claiming nothing claims the seed's twelve and the optional tools the server lists: the
    reference lists mem_get_observation (optional) and no mem_compare (a v1.20.0 tool)."""
    result = run_against(tmp_path, only=("DISC-003",))
    assert "mem_compare" not in result.tools_claimed and "mem_compare" not in result.tools_listed
    assert "mem_get_observation" in result.tools_claimed
    assert set(load().seed_tools) <= set(result.tools_claimed)
    assert result.verdicts["DISC-003"].verdict == "pass"


def test_a_claimed_tool_not_listed_breaks_the_rule(tmp_path: Path) -> None:
    claimed = ("mem_save", "mem_compare")
    result = run_against(tmp_path, claim=claimed, only=("DISC-003",))
    assert result.verdicts["DISC-003"].verdict == "warn"
    [failure] = result.ledger.evidence["DISC-003"].failures
    assert failure.expected == "mem_compare in tools/list"


def test_a_rule_needing_an_unclaimed_tool_does_not_pass_on_its_other_parts(tmp_path: Path) -> None:
    """DEL-002's statement needs mem_timeline; without it, what the model check passed of the
    rule decides nothing: not applicable, saying what passed."""
    claimed = (*load().seed_tools, "mem_get_observation")
    result = run_against(tmp_path, claim=claimed, only=("DEL-002",), profile="full")
    assert result.ledger.evidence["DEL-002"].passed > 0
    verdict = result.verdicts["DEL-002"]
    assert verdict.verdict == "not_applicable"
    assert (
        "does not claim mem_timeline" in verdict.reason and "other part(s) passed" in verdict.reason
    )
