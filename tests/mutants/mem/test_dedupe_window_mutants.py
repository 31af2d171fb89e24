"""DEDUP-005 fires on a server whose dedupe window is not the one it was started with or runs
from the last repeat (``catalog/dedupe_window.py``); the mem reference passes it with a window
the check can wait out, and it is not applicable with the default 15 minutes."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.spec.mem.registration import REFERENCE_DEDUPE_WINDOW_S

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, assert_caught
from .catalog.dedupe_window import MUTANTS

RULE = ("DEDUP-005",)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_dedupe_window_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught
) -> None:
    window = REFERENCE_DEDUPE_WINDOW_S
    assert_caught(
        run_against(tmp_path, wiring_mutant=mutant, only=RULE, dedupe_window_s=window), caught
    )


def test_the_mem_reference_keeps_its_window(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=RULE, dedupe_window_s=REFERENCE_DEDUPE_WINDOW_S)
    assert result.verdicts["DEDUP-005"].verdict == "pass"


def test_the_default_window_is_too_long_to_wait_out(tmp_path: Path) -> None:
    verdict = run_against(tmp_path, only=RULE).verdicts["DEDUP-005"]
    assert verdict.verdict == "not_applicable"
    assert verdict.reason.startswith("the descriptor gives no dedupe window")


def test_a_window_longer_than_the_harness_waits_is_said(tmp_path: Path) -> None:
    verdict = run_against(tmp_path, only=RULE, dedupe_window_s=60.0).verdicts["DEDUP-005"]
    assert verdict.verdict == "not_applicable"
    assert verdict.reason.startswith("the descriptor gives a dedupe window of 60 s")
