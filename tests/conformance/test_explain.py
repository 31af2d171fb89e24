"""``engram-conformance explain RULE`` (issue 26, item 7): what the kit knows of one rule."""

from __future__ import annotations

from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main


def _explain(*arguments: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["explain", *arguments])
    return result.exit_code, result.output


def test_a_rule_is_explained_with_its_source_checks_examples_and_mutants() -> None:
    code, text = _explain("schema-019")
    assert code == 0
    assert text.startswith("engram-memory: SCHEMA-019 (must): record_id arguments")
    assert "Rests on: seed §2 engram_memory_get" in text
    assert '"Entrada: record_id (patrón ^mem_[a-z2-7]+$)' in text
    assert "Checks: forget_answers_the_labelled_argument_examples" in text
    assert "engram_memory_get: record-id-uppercase: " in text
    assert "Mutants that prove it (1): RecordIdTrailingNewline" in text


def test_an_id_two_contracts_use_is_explained_for_each_unless_one_is_named() -> None:
    code, text = _explain("PRIV-001")
    assert code == 0 and text.startswith("engram-memory: PRIV-001 (must): A pending candidate")
    assert "\nmem: PRIV-001 (should): Text between <private>" in text
    code, text = _explain("PRIV-001", "--contract", "mem")
    assert code == 0 and text.startswith("mem: PRIV-001 (should): ")
    assert "Checks: saved_private_text_is_redacted" in text


def test_an_unknown_rule_is_one_line_and_exit_2() -> None:
    code, text = _explain("NOPE-999")
    assert code == 2
    assert text.strip().splitlines() == [
        "engram-conformance: NOPE-999: no rule of any contract has this id "
        "(see 'engram-conformance rules')"
    ]
    code, text = _explain("DISC-001", "--contract", "engram-memory")
    assert code == 2 and "no rule of the engram-memory contract" in text


def test_rules_lists_statements_and_says_when_none_is_untested() -> None:
    listed = CliRunner().invoke(main, ["rules", "--contract", "mem"])
    assert listed.exit_code == 0
    lines = listed.output.splitlines()
    assert lines[0].startswith("DISC-001    must     ")
    assert lines[1].startswith(" " * 21) and len(lines[1].strip()) > 20  # its statement
    untested = CliRunner().invoke(main, ["rules", "--untested"])
    assert untested.output == (
        "none: every testable rule of engram-memory has a check that decides it\n"
    )


def test_the_mutants_shown_are_the_contracts_own() -> None:
    """Both contracts have an ERR-005: mem's mutants were shown under engram-memory's too."""
    code, mine = _explain("ERR-005", "--contract", "engram-memory")
    assert code == 0 and "Mutants that prove it" in mine
    code, theirs = _explain("ERR-005", "--contract", "mem")
    assert code == 0 and "SaveTakesTitleOfAnyType" in theirs
    assert "SaveTakesTitleOfAnyType" not in mine
