"""``fuzz --reference`` with no contract named: one campaign per contract with a state machine,
each against its own reference server, in which HypoFuzz's search finds nothing."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main


def test_both_references_hold_under_a_short_campaign(tmp_path: Path) -> None:
    """Bounded by examples alone: two a contract."""
    result = CliRunner().invoke(
        main,
        ["fuzz", "--reference", "--examples", "2", "--seed", "3", "--output", str(tmp_path)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    said = result.output.splitlines()
    for contract in ("engram-memory", "mem"):
        assert f"{contract}: 0 rule(s) broken in 2 examples" in said, result.output
    assert (tmp_path / "database").is_dir()
