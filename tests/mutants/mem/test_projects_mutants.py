"""Each PROJ check of the mem contract fires on a server that breaks its rule
(``catalog/projects.py``), and only the rules it breaks; the mem reference passes them all,
PROJ-003 where its precondition holds (started in an empty folder with no project configured).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from .catalog.projects import MUTANTS, InEmptyFolder

PROJ = ("PROJ",)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_projects_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, PROJ)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_proj_rule_has_a_mutant() -> None:
    rules = set(mem_rules("PROJ"))
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == rules


def test_the_mem_reference_passes_the_project_rules(tmp_path: Path) -> None:
    """In process the reference's project is configured (``--project``): PROJ-003's
    precondition does not hold, and the verdict says so."""
    result = run_against(tmp_path, only=PROJ)
    proj = mem_rules("PROJ")
    expected = dict.fromkeys(proj, "pass") | {"PROJ-003": "not_applicable"}
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == expected
    reason = "the current project is configured (project_source process_override)"
    assert result.verdicts["PROJ-003"].reason == reason


def test_the_mem_reference_in_an_empty_folder_passes_proj_003(tmp_path: Path) -> None:
    result = run_against(tmp_path, wiring_mutant=InEmptyFolder, only=PROJ)
    proj = mem_rules("PROJ")
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == dict.fromkeys(proj, "pass")
