"""SAVE-008 fires on a mem server that forgets what it saved when it stops
(``catalog/restart.py``, over stdio, where the harness restarts the server); the mem reference
keeps its memories, and in this process, where no server is restarted, the rule is not applicable.
"""

from __future__ import annotations

from pathlib import Path

from ...conformance.mem.inprocess import run_against
from ..caught import assert_caught
from ..described import planted, run_described
from .catalog.restart import STDIO

RULE = "SAVE-008"


def test_a_mem_server_that_forgets_on_stop_is_caught(tmp_path: Path) -> None:
    _, caught = STDIO["temporary-store"]
    server = planted("mem.restart", "temporary-store")
    found = run_described(tmp_path, server, RULE, mutant="temporary-store", contract="mem")
    assert_caught(found, caught)


def test_the_mem_reference_keeps_its_memories_over_a_restart(tmp_path: Path) -> None:
    reference = ["engram-reference", "serve"]
    found = run_described(tmp_path, reference, RULE, mutant="reference", contract="mem")
    assert found[RULE].verdict == "pass"


def test_no_restart_in_this_process(tmp_path: Path) -> None:
    verdict = run_against(tmp_path, only=(RULE,)).verdicts[RULE]
    assert verdict.verdict == "not_applicable"
    assert verdict.reason.startswith("the harness restarts only a server it starts over stdio")
