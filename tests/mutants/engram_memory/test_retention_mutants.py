"""Each retention check fires on a server that breaks its rule (``catalog/retention.py``); the
reference passes them all."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.engram_memory.settings import Policy
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, all_pass, assert_caught, family_verdicts
from .base import ServiceProxy, plant
from .catalog.retention import ABOVE_THE_CEILING, EXPIRY, MUTANTS, loose_ceiling


@pytest.mark.parametrize(
    ("mutant", "caught"),
    MUTANTS,
    ids=lambda value: value.__name__ if isinstance(value, type) else "",
)
def test_retention_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, ("RET",))
    assert_caught(run_against(tmp_path, service_mutant=mutant, only=only), caught)


def test_a_ceiling_above_the_declared_one_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = plant(loose_ceiling, monkeypatch, tmp_path)
    assert_caught(run_against(tmp_path, only=("RET",), **planted), ABOVE_THE_CEILING)


@pytest.mark.parametrize(("mutant", "caught"), EXPIRY, ids=[m.__name__ for m, _ in EXPIRY])
def test_expiry_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], caught: Caught
) -> None:
    result = run_against(tmp_path, service_mutant=mutant, only=("RET-006",), profile="full")
    assert_caught(result, caught)


def test_the_reference_passes_every_retention_rule(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("RET",), profile="full")
    assert family_verdicts(result, "RET") == all_pass("RET")


def test_retain_is_committed_where_the_host_permits_it(tmp_path: Path) -> None:
    result = run_against(
        tmp_path,
        server_policy=HostPolicy(retain_allowed=True),
        target_policy=Policy(retain_allowed=True),
        only=("RET",),
    )
    assert_caught(result, Caught(()))
    assert result.verdicts["RET-002"].verdict == "pass"
