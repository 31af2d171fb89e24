"""docs/mutation-score.md is the kill matrix of the mutant tests as they are now, every mutant
killed: a mutant added, renamed or removed without regenerating the page fails here.

The README's run checks the page against the mutant tests collected; the one slow test (``pytest
-m slow``, which ``.ci/run`` runs after the README's command) runs every mutant test over the
whole families it names, as ``pytest -n 0 tests/mutants --mutation-score
docs/mutation-score.md`` does to regenerate the page, and compares the matrix it finds with the
page's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ..conftest import REPO_ROOT
from .score import Meta, Record, Recording, Run, family_of, is_mutant_test, read, render

PAGE = REPO_ROOT / "docs" / "mutation-score.md"
REGENERATE = "pytest -n 0 tests/mutants --mutation-score docs/mutation-score.md"


def collected_mutant_tests() -> list[str]:
    """The ids of the mutant tests pytest collects in tests/mutants now."""
    command = ["pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests/mutants"]
    listing = subprocess.run(
        [sys.executable, "-m", *command],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in listing.splitlines() if "::" in line and is_mutant_test(line)]


def test_the_page_is_the_kill_matrix_of_the_mutants_collected(pytestconfig: pytest.Config) -> None:
    if pytestconfig.getoption("mutation_score", None):
        pytest.skip("this run writes the page anew")
    page = read(PAGE.read_text(encoding="utf-8"))
    assert page.generated, f"{PAGE} was not written by {REGENERATE}"
    collected = collected_mutant_tests()
    assert len(collected) >= 40
    missing, stale = set(collected) - set(page.test_ids), set(page.test_ids) - set(collected)
    assert not missing and not stale, f"regenerate with {REGENERATE}: {missing=} {stale=}"
    assert len(page.test_ids) == len(collected), "a mutant test listed twice"
    assert (page.killed, page.total) == (len(collected), len(collected)), page
    assert page.not_killed == []


@pytest.mark.slow
def test_a_full_run_of_the_mutants_finds_the_kill_matrix_of_the_page(tmp_path: Path) -> None:
    """Each mutant, its run selecting every rule of the families its test names, is killed by
    the rules the page says, and no other rule of those families reads broken (the README's
    run selects only the rules each mutant declares: ``selecting`` in ``conftest.py``)."""
    found = tmp_path / "mutation-score.md"
    command = ["pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "tests/mutants"]
    done = subprocess.run(
        [sys.executable, "-m", *command, "--mutation-score", str(found)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.is_file(), done.stdout[-5000:]
    page, run = read(PAGE.read_text(encoding="utf-8")), read(found.read_text(encoding="utf-8"))
    assert run.matrix == page.matrix, f"the run's rows differ; if it is right, {REGENERATE}"
    assert done.returncode == 0, done.stdout[-5000:]


def _record(nodeid: str, asserted: set[str], broken: dict[str, str], outcome: str) -> Record:
    run = Run(["SomeMutant"], "Breaks a rule.", "quick", 1, broken, [])
    return Record(nodeid, "some", "", asserted, [run], outcome, 0.5)


def test_a_mutant_is_killed_by_the_rules_its_test_asserts_broken() -> None:
    records = [
        _record("tests/mutants/test_a_mutants.py::test_x_is_caught[A]", {"ENV-006"}, {}, "passed"),
        _record(
            "tests/mutants/test_a_mutants.py::test_x_is_caught[B]",
            {"ENV-006"},
            {"ENV-006": "warn"},
            "failed",
        ),
        _record(
            "tests/mutants/test_b_mutants.py::test_y_is_caught",
            {"ENV-006"},
            {"ENV-006": "warn", "ERR-004": "fail"},
            "passed",
        ),
    ]
    page = read(render(records, Meta("pytest tests/mutants --mutation-score x.md", "today", 1.0)))
    assert page.generated
    assert (page.killed, page.total) == (1, 3)
    assert page.test_ids == [record.nodeid for record in records]
    assert page.not_killed == [record.nodeid for record in records[:2]]
    assert page.matrix[2] == (
        f"SomeMutant<br>`{records[2].nodeid}`",
        "ENV-006",
        "ENV-006, ERR-004",
        "quick",
        "yes",
    )


def test_mutant_tests_are_told_by_their_names() -> None:
    assert is_mutant_test("tests/mutants/test_a_mutants.py::test_x_is_caught[A_caught-B]")
    assert is_mutant_test("tests/mutants/test_a_mutants.py::test_keys_are_caught_over_clients")
    assert not is_mutant_test("tests/mutants/test_a_mutants.py::test_reference_passes[x_caught]")


def test_a_family_is_named_with_its_contract() -> None:
    """Two contracts may have a family of one name (both have ``privacy``): the score counts
    them apart."""
    engram = "tests/mutants/engram_memory/test_privacy_mutants.py::test_x_is_caught[A]"
    mem = "tests/mutants/mem/test_privacy_mutants.py::test_mem_privacy_mutant_is_caught[B]"
    assert (family_of(engram), family_of(mem)) == ("engram_memory/privacy", "mem/privacy")


def test_each_rule_shows_its_cases_on_the_reference_and_its_killed_mutants() -> None:
    killed = _record(
        "tests/mutants/test_a_mutants.py::test_x_is_caught[A]",
        {"ENV-006"},
        {"ENV-006": "warn"},
        "passed",
    )
    reference = Record("tests/mutants/test_a_mutants.py::test_reference", "reference", "")
    for cases in ({"ENV-006": 4, "ENV-001": 2}, {"ENV-006": 7}):
        reference.runs.append(Run([], "", "quick", 1, {}, [], cases=cases))
    lines = render([killed], Meta("pytest", "today", 1.0), [reference]).splitlines()
    assert "| engram-memory | ENV-006 | 7 | 1 |" in lines  # the most one reference run judged
    assert "| engram-memory | ENV-001 | 2 | 0 |" in lines
    assert "| engram-memory | ENV-002 | - | 0 |" in lines


def test_a_mutant_over_stdio_is_charged_to_the_rules_of_its_contract(tmp_path: Path) -> None:
    """A run of ``run_described`` names the contract it was given: the mem rule it breaks is
    mem's (SAVE-008 is no engram-memory rule), and the command is written from the repository's
    root, not from the checkout that made the page."""
    record = Record("tests/mutants/test_a_mutants.py::test_x_is_caught", "x", "")
    found = {"SAVE-008": SimpleNamespace(verdict="fail")}
    recorded = Recording(record).run_described(lambda *_, **__: found)
    server = [sys.executable, str(REPO_ROOT / "tests" / "mutants" / "stdio_server.py"), "f", "m"]
    assert recorded(tmp_path, server, "SAVE-008", mutant="m", contract="mem") is found
    (run,) = record.runs
    assert (run.contract, run.broken) == ("mem", {"SAVE-008": "fail"})
    assert run.doc == "over stdio: tests/mutants/stdio_server.py f m"
    record.asserted, record.outcome = {"SAVE-008"}, "passed"
    lines = render([record], Meta("pytest", "today", 1.0)).splitlines()
    assert "| mem | SAVE-008 | - | 1 |" in lines
    assert not any(line.startswith("- mem:") and "SAVE-008" in line for line in lines)
