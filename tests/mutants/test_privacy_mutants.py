"""Each privacy check fires on a server that breaks its rule; the reference passes them all.

The in-process target lists the state folder as its ``[state] files``; a launched reference is
checked through its descriptor's globs and its stderr log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli import main
from engram_conformance.conformance.engram_memory.checks.context import CAPTURE, WITHDRAW
from engram_conformance.conformance.targets.descriptor import Policy, TargetDescriptor
from engram_conformance.conformance.targets.launch import LaunchedTarget, Workspace
from engram_conformance.reference_impl.engram_memory import credentials
from engram_conformance.reference_impl.engram_memory.tools import admission
from engram_conformance.reports.document import load as load_report

from ..conformance.inprocess import ServiceProxy, broken_verdict, run_against
from .lifecycle_support import all_pass, edited, reported, verdicts


def _texts(arguments: Any) -> list[str]:
    """The component texts and attestation of capture arguments."""
    texts = [component["text"] for component in arguments["payload"]["components"]]
    return [*texts, arguments["evidence"].get("attestation", "")]


class PlaintextOnDisk(ServiceProxy):
    """A debug journal in the state folder keeps every captured text in clear (PRIV-001), and
    keeps it after the candidate ends (PRIV-002)."""

    def __init__(self, inner: Any, state_dir: Path) -> None:
        super().__init__(inner)
        self.journal = state_dir / "captures.log"

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == CAPTURE:
            with self.journal.open("a", encoding="utf-8") as journal:
                journal.write(json.dumps(_texts(arguments)) + "\n")
        return self.inner.call(tool, arguments, context)


class TrashKeepsWithdrawn(ServiceProxy):
    """Withdrawn candidates' texts are moved to a trash file in clear (PRIV-002)."""

    def __init__(self, inner: Any, state_dir: Path) -> None:
        super().__init__(inner)
        self.trash = state_dir / "trash.jsonl"
        self.captured: dict[str, list[str]] = {}

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool == CAPTURE and envelope["ok"]:
            self.captured[envelope["output"]["value"]["candidate_id"]] = _texts(arguments)
        if tool == WITHDRAW and envelope["ok"]:
            with self.trash.open("a", encoding="utf-8") as trash:
                trash.write(json.dumps(self.captured[arguments["candidate_id"]]) + "\n")
        return envelope


class KeyDestructionPending(ServiceProxy):
    """withdraw leaves the data key to be destroyed later (PRIV-003)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != WITHDRAW:
            return envelope
        return edited(envelope, lambda value: value.update(key_destruction="pending"))


@pytest.mark.parametrize(
    ("mutant", "broken"),
    [
        (
            PlaintextOnDisk,
            {
                "PRIV-001": "pending_candidate_is_not_stored_in_clear",
                "PRIV-002": "ended_candidates_leave_no_plaintext",
                "PRIV-007": "forget_erases_the_text",  # the journal keeps a forgotten text too
            },
        ),
        (TrashKeepsWithdrawn, {"PRIV-002": "ended_candidates_leave_no_plaintext"}),
        (KeyDestructionPending, {"PRIV-003": "withdraw_destroys_the_data_key"}),
    ],
    ids=lambda value: value.__name__ if isinstance(value, type) else "",
)
def test_privacy_mutant_is_caught(tmp_path: Path, mutant: type, broken: dict[str, str]) -> None:
    """The mutant breaks exactly these PRIV rules, each reported by the check named."""

    def wrap(inner: Any) -> Any:
        return mutant(inner, tmp_path) if mutant is not KeyDestructionPending else mutant(inner)

    result = run_against(tmp_path, service_mutant=wrap, only=("PRIV",))
    assert reported(result, "PRIV") == {rule: {check} for rule, check in broken.items()}
    for rule in broken:
        assert result.verdicts[rule].verdict == broken_verdict(rule)


def test_a_server_without_a_credential_detector_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The admission policy finds no credential in anything: secrets become memory (PRIV-006)."""
    monkeypatch.setattr(admission, "carries_credential", lambda *texts: False)
    result = run_against(tmp_path, only=("PRIV-006",))
    assert result.verdicts["PRIV-006"].verdict == broken_verdict("PRIV-006")


#: The pre-fix armour pattern (issue 12, finding 5): "PRIVATE KEY-----" right after the words,
#: so a PGP block ("PRIVATE KEY BLOCK-----") is not seen.
_PEM_ONLY = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY-----")


def _without_pgp(monkeypatch: pytest.MonkeyPatch) -> None:
    patterns = [
        _PEM_ONLY if pattern is credentials.PRIVATE_KEY_BLOCK else pattern
        for pattern in credentials.PATTERNS
    ]
    monkeypatch.setattr(credentials, "PATTERNS", patterns)


#: Detectors that each miss one class of the catalogue: no folding (zero-width and fullwidth
#: forms pass), components read only each alone (a split pair passes), PGP blocks unseen.
DETECTOR_MUTANTS = {
    "no folding": lambda monkeypatch: monkeypatch.setattr(credentials, "fold", lambda t: t),
    "components alone": lambda monkeypatch: monkeypatch.setattr(
        credentials, "run_together", lambda texts: ""
    ),
    "no PGP blocks": _without_pgp,
}


@pytest.mark.parametrize("mutate", DETECTOR_MUTANTS.values(), ids=DETECTOR_MUTANTS.keys())
def test_a_detector_that_misses_one_class_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutate: Callable[[pytest.MonkeyPatch], None]
) -> None:
    """Only PRIV-006 reads broken, reported by the catalogue check; every other PRIV rule,
    whose checks use a plain credential, still passes."""
    mutate(monkeypatch)
    result = run_against(tmp_path, only=("PRIV",))
    assert reported(result, "PRIV") == {"PRIV-006": {"credentials_are_never_stored"}}
    assert result.verdicts["PRIV-006"].verdict == broken_verdict("PRIV-006")


def test_the_reference_passes_every_privacy_rule(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("PRIV",))
    assert verdicts(result, "PRIV") == all_pass("PRIV")


def test_secret_rules_are_not_applicable_where_secrets_are_kept(tmp_path: Path) -> None:
    result = run_against(tmp_path, target_policy=Policy(rejects_secrets=False), only=("PRIV",))
    assert result.verdicts["PRIV-006"].verdict == "not_applicable"
    assert result.verdicts["PRIV-002"].verdict == "pass"  # the withdrawn candidate alone


def test_a_launched_reference_is_searched_through_its_state_globs_and_log(tmp_path: Path) -> None:
    report = tmp_path / "report"
    CliRunner().invoke(
        main,
        ["run", "--reference", "--only", "PRIV", "--report-dir", str(report)],
        catch_exceptions=False,
    )
    rules = load_report(report / "report.json").rules
    assert {rule.id: rule.verdict for rule in rules if rule.family == "PRIV"} == all_pass("PRIV")


def test_state_files_are_the_descriptor_globs_filled_in(tmp_path: Path) -> None:
    descriptor = TargetDescriptor(name="x", transport="stdio", command=("x",))
    workspace = Workspace(tmp_path, tmp_path / "key.pem")
    assert LaunchedTarget(descriptor, workspace).state_files is None
    listed = replace(descriptor, state_files=("{state_dir}/**/*.db",))
    (workspace.state_dir / "deep").mkdir(parents=True)
    (workspace.state_dir / "deep" / "memory.db").write_bytes(b"")
    (workspace.state_dir / "memory.log").write_bytes(b"")
    files = LaunchedTarget(listed, workspace).state_files
    assert files is not None and files() == [workspace.state_dir / "deep" / "memory.db"]
