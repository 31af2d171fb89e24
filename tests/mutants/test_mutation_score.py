"""docs/mutation-score.md is the kill matrix of the mutant tests as they are now, every mutant
killed: a mutant added, renamed or removed without regenerating the page fails here.

The page is checked against the mutant tests collected, not by running them again (that takes
minutes): ``pytest tests/mutants --mutation-score docs/mutation-score.md`` regenerates it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import REPO_ROOT
from .score import Meta, Record, Run, is_mutant_test, read, render

PAGE = REPO_ROOT / "docs" / "mutation-score.md"
REGENERATE = "pytest tests/mutants --mutation-score docs/mutation-score.md"


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


def test_mutant_tests_are_told_by_their_names() -> None:
    assert is_mutant_test("tests/mutants/test_a_mutants.py::test_x_is_caught[A_caught-B]")
    assert is_mutant_test("tests/mutants/test_a_mutants.py::test_keys_are_caught_over_clients")
    assert not is_mutant_test("tests/mutants/test_a_mutants.py::test_reference_passes[x_caught]")
