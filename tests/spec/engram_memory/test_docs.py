"""spec docs: the committed reference is what the spec generates."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.spec.engram_memory import Spec
from engram_conformance.spec.engram_memory.docs import render_markdown

COMMITTED = Path(__file__).resolve().parents[3] / "docs" / "contract.md"


def test_committed_contract_reference_is_up_to_date(spec: Spec) -> None:
    assert COMMITTED.read_text(encoding="utf-8") == render_markdown(spec), (
        "docs/contract.md is stale: run `engram-conformance spec docs`"
    )


def test_reference_covers_every_tool_error_state_and_rule(spec: Spec) -> None:
    text = render_markdown(spec)
    for name in [*spec.tools, *spec.errors, *spec.states, *spec.rules]:
        assert name in text


def test_cli_writes_and_checks(tmp_path: Path) -> None:
    output = tmp_path / "contract.md"
    runner = CliRunner()
    assert runner.invoke(main, ["spec", "docs", "--output", str(output), "--check"]).exit_code == 1
    assert runner.invoke(main, ["spec", "docs", "--output", str(output)]).exit_code == 0
    result = runner.invoke(main, ["spec", "docs", "--output", str(output), "--check"])
    assert result.exit_code == 0, result.output
    output.write_text(output.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    assert runner.invoke(main, ["spec", "docs", "--output", str(output), "--check"]).exit_code == 1
