"""Each DEL check of the mem contract fires on a server that breaks its rule
(``catalog/deletes.py``), and only the rules it breaks; the mem reference passes them all but
DEL-005, which the spec marks untestable through MCP. DEL-008 (what a hard delete leaves in the
state files once the server has stopped) is judged of a server the harness starts and stops:
over stdio (``STDIO``), not in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from ..described import planted, run_described
from .catalog.deletes import MUTANTS, STDIO

DEL = ("DEL",)
#: the rule no check can decide through MCP
HTTP_RECOVERY = "DEL-005"
#: the rule judged once the harness has stopped the server
ERASURE = "DEL-008"


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_deletes_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, DEL)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_checked_del_rule_has_a_mutant() -> None:
    checked = set(mem_rules("DEL")) - {HTTP_RECOVERY, ERASURE}
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == checked
    assert {rule for _, caught in STDIO.values() for rule in caught.broken} == {ERASURE}


def test_the_mem_reference_passes_the_delete_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=DEL)
    verdicts = {rule: v.verdict for rule, v in result.verdicts.items()}
    undecided = dict.fromkeys((HTTP_RECOVERY, ERASURE), "not_applicable")
    assert verdicts == dict.fromkeys(mem_rules("DEL"), "pass") | undecided
    reason = result.verdicts[HTTP_RECOVERY].reason
    assert reason.startswith("not testable from outside a server: The mem contract is tested")
    assert "HTTP API" in reason


@pytest.mark.parametrize("mutant", sorted(STDIO))
def test_mem_deletes_stdio_mutant_is_caught(tmp_path: Path, mutant: str) -> None:
    _, caught = STDIO[mutant]
    server = planted("mem.deletes", mutant)
    found = run_described(
        tmp_path, server, ERASURE, mutant=mutant, state_files=True, contract="mem"
    )
    assert_caught(found, caught)


def test_the_mem_reference_has_erased_once_stopped(tmp_path: Path) -> None:
    server = ["engram-reference", "serve"]
    found = run_described(
        tmp_path, server, ERASURE, mutant="reference", state_files=True, contract="mem"
    )
    assert {rule.id: rule.verdict for rule in found.values()} == {ERASURE: "pass"}
