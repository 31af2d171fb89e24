"""Each DEL check of the mem contract fires on a server that breaks its rule
(``catalog/mem_deletes.py``), and only the rules it breaks; the mem reference passes them all but
DEL-005, which the spec marks untestable through MCP."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ..conformance.mem.inprocess import run_against
from .catalog.mem_deletes import MUTANTS
from .caught import Caught, assert_caught, mem_rules

DEL = ("DEL",)
#: the rule no check can decide through MCP
HTTP_RECOVERY = "DEL-005"


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_deletes_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught
) -> None:
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=DEL), caught)


def test_every_checked_del_rule_has_a_mutant() -> None:
    checked = set(mem_rules("DEL")) - {HTTP_RECOVERY}
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == checked


def test_the_mem_reference_passes_the_delete_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=DEL)
    verdicts = {rule: v.verdict for rule, v in result.verdicts.items()}
    expected = dict.fromkeys(mem_rules("DEL"), "pass") | {HTTP_RECOVERY: "not_applicable"}
    assert verdicts == expected
    reason = result.verdicts[HTTP_RECOVERY].reason
    assert reason.startswith("not testable from outside a server: The mem contract is tested")
    assert "HTTP API" in reason
