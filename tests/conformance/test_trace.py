"""The traceability tables (issue 26, item 7): each rule, the source sentence it rests on, the
checks that decide it and the mutants that prove them; the pages in docs/ are kept current."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance import contracts
from engram_conformance.conformance.cli.app import main


@pytest.mark.parametrize("contract", contracts.names())
def test_the_published_page_is_current(contract: str) -> None:
    result = CliRunner().invoke(main, ["trace", "--contract", contract, "--check"])
    assert result.exit_code == 0, result.output


def test_a_row_names_the_seed_sentence_the_checks_and_the_mutants(tmp_path: Path) -> None:
    page = tmp_path / "trace.md"
    result = CliRunner().invoke(main, ["trace", "--output", str(page)])
    assert result.exit_code == 0, result.output
    [row] = [
        line for line in page.read_text(encoding="utf-8").splitlines() if "| SCHEMA-019 |" in line
    ]
    assert "seed §2 engram_memory_get: “Entrada: record_id (patrón" in row
    assert "`get_answers_the_labelled_argument_examples`" in row
    assert row.endswith("| RecordIdTrailingNewline |")


def test_a_stale_page_is_told(tmp_path: Path) -> None:
    page = tmp_path / "trace.md"
    page.write_text("old\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["trace", "--output", str(page), "--check"])
    assert result.exit_code == 1 and "is stale" in result.output
