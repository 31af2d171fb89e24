"""SAVE-013 fires on mem servers that cannot share a data folder with other processes
(``catalog/writers.py``, over stdio, where the harness starts them); the mem reference keeps
every save of several processes, and in this process, where it starts none, the rule is not
applicable."""

from __future__ import annotations

from pathlib import Path

import pytest

from ...conformance.mem.inprocess import run_against
from ..caught import assert_caught
from ..described import planted, run_described
from .catalog.writers import STDIO

RULE = "SAVE-013"


@pytest.mark.parametrize("mutant", sorted(STDIO))
def test_a_mem_server_that_cannot_share_its_data_folder_is_caught(
    tmp_path: Path, mutant: str
) -> None:
    _, caught = STDIO[mutant]
    server = planted("mem.writers", mutant)
    assert_caught(run_described(tmp_path, server, RULE, mutant=mutant, contract="mem"), caught)


def test_the_mem_reference_keeps_every_writers_saves(tmp_path: Path) -> None:
    reference = ["engram-reference", "serve"]
    found = run_described(tmp_path, reference, RULE, mutant="reference", contract="mem")
    assert found[RULE].verdict == "pass"


def test_no_several_processes_in_this_process(tmp_path: Path) -> None:
    verdict = run_against(tmp_path, only=(RULE,)).verdicts[RULE]
    assert verdict.verdict == "not_applicable"
    assert verdict.reason.startswith("the harness starts several server processes only")
