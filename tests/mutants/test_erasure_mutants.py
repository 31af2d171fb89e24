"""The erasure check (PRIV-007) fires on servers whose forget answers "complete" while the text is
still in a state file, and no other privacy rule reads broken; a "pending" answer is judged once
the harness has stopped the server, and not at all for a server it does not stop.

The in-process target lists the state folder as its ``[state] files``; the stdio mutant is a
descriptor's (``erasure_server.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks.context import ADMIT, CAPTURE, FORGET
from engram_conformance.reference_impl.engram_memory.store import Store

from ..conformance.inprocess import ServiceProxy, broken_verdict, run_against
from .described import run_described
from .lifecycle_support import all_pass, edited, reported, verdicts

RULE = "PRIV-007"
CHECK = "forget_erases_the_text"


class RecycleBin(ServiceProxy):
    """Forget moves the record's texts to a recycle bin in the state folder, in clear (a soft
    delete), and answers "complete"."""

    def __init__(self, inner: Any, state_dir: Path) -> None:
        super().__init__(inner)
        self.bin = state_dir / "recycle.jsonl"
        self.texts: dict[str, list[str]] = {}

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        value = envelope["output"]["value"] if envelope["ok"] else {}
        if tool == CAPTURE and "candidate_id" in value:
            components = arguments["payload"]["components"]
            self.texts[value["candidate_id"]] = [component["text"] for component in components]
        if tool == ADMIT and "record_id" in value.get("outcome", {}):
            self.texts[value["outcome"]["record_id"]] = self.texts.get(arguments["candidate_id"])
        if tool == FORGET and envelope["ok"]:
            with self.bin.open("a", encoding="utf-8") as recycled:
                recycled.write(json.dumps(self.texts.get(arguments["record_id"])) + "\n")
        return envelope


class ForgetPending(ServiceProxy):
    """Forget answers projection_invalidation "pending" (the erasure is left for later)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != FORGET:
            return envelope
        return edited(envelope, lambda value: value.update(projection_invalidation="pending"))


def _caught(result: Any) -> None:
    assert reported(result, "PRIV") == {RULE: {CHECK}}
    assert result.verdicts[RULE].verdict == broken_verdict(RULE)


def test_a_forget_that_leaves_the_text_in_the_wal_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The WAL is never checkpointed after forget (the pages the transaction overwrote keep the
    text while the server runs), yet forget answers "complete"."""
    monkeypatch.setattr(Store, "checkpoint", lambda self: True)
    _caught(run_against(tmp_path, only=("PRIV",)))


def test_a_soft_delete_is_caught(tmp_path: Path) -> None:
    result = run_against(
        tmp_path, service_mutant=lambda inner: RecycleBin(inner, tmp_path), only=("PRIV",)
    )
    _caught(result)


def test_a_pending_erasure_is_not_judged_mid_run(tmp_path: Path) -> None:
    result = run_against(tmp_path, service_mutant=ForgetPending, only=("PRIV",))
    assert result.verdicts[RULE].verdict == "not_applicable"
    assert verdicts(result, "PRIV") == all_pass("PRIV") | {RULE: "not_applicable"}


def test_the_reference_erases_what_it_forgets(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("PRIV",))
    assert verdicts(result, "PRIV") == all_pass("PRIV")


def test_a_pending_erasure_that_never_comes_is_caught_after_the_stop(tmp_path: Path) -> None:
    server = [sys.executable, str(Path(__file__).with_name("erasure_server.py")), "never-erases"]
    found = run_described(
        tmp_path, [*server, "serve"], "PRIV", mutant="never-erases", state_files=True
    )
    assert found[RULE].verdict == broken_verdict(RULE)
    assert all("once the server has stopped" in f.expected for f in found[RULE].failures)
    others = {rule.id: rule.verdict for rule in found.values() if rule.id != RULE}
    assert set(others.values()) <= {"pass", "not_applicable"}, others


def test_the_reference_has_erased_once_stopped(tmp_path: Path) -> None:
    found = run_described(
        tmp_path, ["engram-reference", "serve"], "PRIV", mutant="reference", state_files=True
    )
    assert {rule.id: rule.verdict for rule in found.values()} == all_pass("PRIV")
