"""Each SRCH check of the mem contract fires on a server that breaks its rule
(``catalog/searching.py``), and only the rules it breaks; the mem reference passes them all,
and a server whose mem_search lists neither match_mode nor all_projects gets their rules
not applicable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from ..described import planted, run_described
from .catalog.discovery import WiringMutant
from .catalog.searching import MUTANTS, STDIO

SRCH = ("SRCH",)
#: the rules that need an argument upstream added after v1.7.0, and that argument
REQUIRING = {"SRCH-009": "match_mode", "SRCH-010": "all_projects"}


class ListsV17Search(WiringMutant):
    """mem_search's schema as v1.7.0 lists it: no match_mode, no all_projects."""

    def altered(self, tools: dict[str, dict[str, Any]]) -> None:
        properties = tools["mem_search"]["inputSchema"]["properties"]
        for name in REQUIRING.values():
            del properties[name]


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_searching_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, SRCH)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_srch_rule_has_a_mutant() -> None:
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == set(mem_rules("SRCH"))


def test_the_mem_reference_passes_the_search_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=SRCH)
    verdicts = {rule: v.verdict for rule, v in result.verdicts.items()}
    assert verdicts == dict.fromkeys(mem_rules("SRCH"), "pass")


def test_rules_of_later_arguments_are_not_applicable_without_them(tmp_path: Path) -> None:
    result = run_against(tmp_path, wiring_mutant=ListsV17Search, only=SRCH)
    for rule, argument in REQUIRING.items():
        verdict = result.verdicts[rule]
        assert (verdict.verdict, verdict.reason) == (
            "not_applicable",
            f"mem_search's input schema lists no {argument}",
        )
    others = {rule: v.verdict for rule, v in result.verdicts.items() if rule not in REQUIRING}
    assert others == dict.fromkeys(others, "pass")


@pytest.mark.parametrize("mutant", sorted(STDIO))
def test_mem_searching_stdio_mutant_is_caught(tmp_path: Path, mutant: str) -> None:
    """A search that keeps every later call waiting is charged to SRCH-011 alone: the session
    checks run after it pass on a fresh connection (for a server over stdio, a new process)."""
    _, caught = STDIO[mutant]
    server = planted("mem.searching", mutant)
    only = "SRCH-011,SESS-001,SESS-006"
    found = run_described(tmp_path, server, only, mutant=mutant, call_timeout_s=2, contract="mem")
    assert_caught(found, caught)
    assert found["SESS-001"].verdict == "pass"
