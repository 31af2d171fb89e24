"""Each privacy check fires on a server that breaks its rule (``catalog/privacy.py``); the
reference passes them all.

The in-process target lists the state folder as its ``[state] files``; a launched reference is
checked through its descriptor's globs and its stderr log.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.engram_memory.settings import Policy
from engram_conformance.conformance.targets.descriptor import TargetDescriptor
from engram_conformance.conformance.targets.launch import LaunchedTarget, Workspace
from engram_conformance.reports.document import load as load_report

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, all_pass, assert_caught, family_verdicts
from .base import Planting, plant
from .catalog.privacy import (
    BLIND,
    DETECTORS,
    MISSED,
    MUTANTS,
    UNDETECTED,
    blind_caught,
    no_credential_detector,
)


@pytest.mark.parametrize(
    ("mutant", "caught"),
    MUTANTS,
    ids=lambda value: value.__name__ if isinstance(value, type) else "",
)
def test_privacy_mutant_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: type,
    caught: Caught,
    selecting: Selecting,
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    assert_caught(run_against(tmp_path, only=selecting(caught, ("PRIV",)), **planted), caught)


def test_a_server_without_a_credential_detector_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = plant(no_credential_detector, monkeypatch, tmp_path)
    assert_caught(run_against(tmp_path, only=("PRIV-006",), **planted), UNDETECTED)


@pytest.mark.parametrize("mutant", DETECTORS.values(), ids=DETECTORS.keys())
def test_a_detector_that_misses_one_class_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutant: Planting, selecting: Selecting
) -> None:
    """Only PRIV-006 reads broken, reported by the catalogue check; every other PRIV rule,
    whose checks use a plain credential, still passes (``--mutation-score``)."""
    planted = plant(mutant, monkeypatch, tmp_path)
    assert_caught(run_against(tmp_path, only=selecting(MISSED, ("PRIV",)), **planted), MISSED)


@pytest.mark.parametrize("kind", BLIND, ids=BLIND.keys())
def test_a_detector_blind_to_one_kind_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, selecting: Selecting
) -> None:
    # PRIV-006 reads broken, every failure about that one kind: each kind the catalogue check
    # sends is caught on its own (no docstring: the page shows the planting's, naming the kind)
    caught = blind_caught(kind)
    planted = plant(BLIND[kind], monkeypatch, tmp_path)
    assert_caught(run_against(tmp_path, only=selecting(caught, ("PRIV",)), **planted), caught)


def test_the_reference_passes_every_privacy_rule(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("PRIV",))
    assert family_verdicts(result, "PRIV") == all_pass("PRIV")


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
