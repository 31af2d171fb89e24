"""Each host-binding check fires on a server that breaks its rule (``catalog/host.py``), and on no
unrelated host rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.spec.engram_memory import load

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, family_verdicts
from .base import plant
from .catalog.host import MUTANTS


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_host_mutant_is_caught(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mutant: type,
    caught: Caught,
    selecting: Selecting,
) -> None:
    outside = tuple(rule for rule in caught.rules if not rule.startswith("HOST-"))
    planted = plant(mutant, monkeypatch, tmp_path)
    only = selecting(caught, ("HOST", *outside))
    assert_caught(run_against(tmp_path, only=only, **planted), caught)


def test_reference_passes_every_host_rule(tmp_path: Path) -> None:
    verdicts = family_verdicts(run_against(tmp_path, only=("HOST",)), "HOST")
    untestable = [rule for rule in verdicts if not load().rules[rule].testable]
    without_text = ["HOST-025"]  # malformed JSON-RPC: a target in process takes no text
    assert {rule: v for rule, v in verdicts.items() if v != "pass"} == dict.fromkeys(
        [*untestable, *without_text], "not_applicable"
    )
