"""The erasure check (PRIV-007) fires on servers whose forget answers "complete" while the text is
still in a state file (``catalog/erasure.py``), and no other privacy rule reads broken; a
"pending" answer is judged once the harness has stopped the server, and not at all for a server
it does not stop.

The in-process target lists the state folder as its ``[state] files``; the stdio mutant is a
descriptor's (``stdio_server.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ...conformance.inprocess import run_against
from ..caught import Selecting, all_pass, assert_caught, family_verdicts
from ..described import planted, run_described
from .base import plant
from .catalog.erasure import ERASED_IN_CLEAR, STDIO, ForgetPending, RecycleBin, wal_kept

RULE = "PRIV-007"


def test_a_forget_that_leaves_the_text_in_the_wal_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_against(tmp_path, only=("PRIV",), **plant(wal_kept, monkeypatch, tmp_path))
    assert_caught(result, ERASED_IN_CLEAR)


def test_a_soft_delete_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_against(tmp_path, only=("PRIV",), **plant(RecycleBin, monkeypatch, tmp_path))
    assert_caught(result, ERASED_IN_CLEAR)


def test_a_pending_erasure_is_not_judged_mid_run(tmp_path: Path) -> None:
    result = run_against(tmp_path, service_mutant=ForgetPending, only=("PRIV",))
    assert family_verdicts(result, "PRIV") == all_pass("PRIV") | {RULE: "not_applicable"}


def test_the_reference_erases_what_it_forgets(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("PRIV",))
    assert family_verdicts(result, "PRIV") == all_pass("PRIV")


def test_a_pending_erasure_that_never_comes_is_caught_after_the_stop(
    tmp_path: Path, selecting: Selecting
) -> None:
    _, caught = STDIO["never-erases"]
    server = planted("engram_memory.erasure", "never-erases")
    only = ",".join(selecting(caught, ("PRIV",)))
    found = run_described(tmp_path, server, only, mutant="never-erases", state_files=True)
    assert_caught(found, caught)


def test_the_reference_has_erased_once_stopped(tmp_path: Path) -> None:
    found = run_described(
        tmp_path, ["engram-reference", "serve"], "PRIV", mutant="reference", state_files=True
    )
    assert {rule.id: rule.verdict for rule in found.values()} == all_pass("PRIV")
