"""Each confirmation-gate check fires on a server that breaks its rule (``catalog/gate.py``), and
on no unrelated gate rule; capture and request_admission are also run with a policy that
requires their approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.settings import Policy
from engram_conformance.conformance.runner import RunResult
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, family_verdicts
from .base import plant
from .catalog.gate import (
    ADMISSION_APPROVAL_UNDECLARED,
    BOTH,
    CAPTURE,
    MUTANTS,
    MUTANTS_WITH_REQUIRED,
    admission_approval_undeclared,
)


def _run(
    tmp_path: Path, required: frozenset[str], only: tuple[str, ...] = ("GATE",), **planted: Any
) -> RunResult:
    """A run of the ``only`` rules (the gate's) with the mutant ``planted``; the server
    requires approval of the tools ``required``, and its descriptor says so."""
    return run_against(
        tmp_path,
        only=only,
        server_policy=HostPolicy(confirmation_required=required),
        target_policy=Policy(confirmation_required=required),
        **planted,
    )


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_gate_mutant_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: type,
    caught: Caught,
    selecting: Selecting,
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    assert_caught(_run(tmp_path, frozenset(), selecting(caught, ("GATE",)), **planted), caught)


@pytest.mark.parametrize(
    ("mutant", "caught"), MUTANTS_WITH_REQUIRED, ids=[m.__name__ for m, _ in MUTANTS_WITH_REQUIRED]
)
def test_gate_mutant_is_caught_when_capture_and_admission_need_approval(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: type,
    caught: Caught,
    selecting: Selecting,
) -> None:
    planted = plant(mutant, monkeypatch, tmp_path)
    assert_caught(_run(tmp_path, BOTH, selecting(caught, ("GATE",)), **planted), caught)


def test_gate_mutant_is_caught_when_admission_needs_approval_undeclared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = plant(admission_approval_undeclared, monkeypatch, tmp_path)
    assert_caught(run_against(tmp_path, only=("GATE",), **planted), ADMISSION_APPROVAL_UNDECLARED)


@pytest.mark.parametrize(
    ("required", "unreachable"),
    [
        (frozenset(), {"GATE-007", "GATE-013"}),
        (frozenset({CAPTURE}), set()),
        (BOTH, {"GATE-008"}),
    ],
    ids=["default policy", "capture required", "both required"],
)
def test_reference_passes_every_gate_rule(
    tmp_path: Path, required: frozenset[str], unreachable: set[str]
) -> None:
    verdicts = family_verdicts(_run(tmp_path, required), "GATE")
    assert {rule: v for rule, v in verdicts.items() if v != "pass"} == dict.fromkeys(
        unreachable, "not_applicable"
    )
