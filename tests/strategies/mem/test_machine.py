"""The mem model check finds the bugs planted in ``planted.py`` and shrinks each to a
few steps; the mem reference passes it.

The runs select the rules the machine decides, in the full profile: the scripted checks of those
rules run too, and where they see a bug as well ``Caught`` names them beside the model check.
Here the machine is bounded by its examples alone, not by its time (``MACHINE_SECONDS``): a
loaded machine (parallel workers on two cores) ran fewer examples in the time, and the same
seed then found less (a rule never exercised, a longer shrunk example)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.mem.checks import model, registry
from engram_conformance.conformance.mem.checks.model import observations_follow_the_model
from engram_conformance.conformance.runner import RunResult
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.strategies.mem.machine import RULES

from ...conformance.mem.inprocess import run_against
from ...mutants.caught import Caught, assert_caught
from .planted import MUTANTS, OtherProjectsLeakIntoSearches

CHECK = observations_follow_the_model.__name__


@pytest.fixture(autouse=True)
def examples_not_time_bound_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "MACHINE_SECONDS", 600.0)


#: the longest shrunk example accepted as a minimal reproduction
MOST_STEPS = 6


def machine_failures(result: RunResult) -> dict[str, list[Any]]:
    """Rule -> the failures the model check recorded against it."""
    return {
        rule: failures
        for rule, evidence in result.ledger.evidence.items()
        if (failures := [f for f in evidence.failures if f.check == CHECK])
    }


@pytest.fixture(scope="module")
def run_of(tmp_path_factory: pytest.TempPathFactory) -> Callable[[type[Handlers]], RunResult]:
    """A mutant -> the full run of the machine's rules against it, made once for this module:
    the shrinking test's mutant is one of ``MUTANTS``, and its run (a search that ends by its
    examples and a fixed seed) is the same in both tests."""

    @cache
    def run(mutant: type[Handlers]) -> RunResult:
        state_dir = tmp_path_factory.mktemp(mutant.__name__)
        return run_against(state_dir, wiring_mutant=mutant, only=RULES, profile="full")

    return run


def shrunk_steps(failure: Any) -> int:
    return int(failure.observed.split("shrunk to ")[1].split(" steps")[0])


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_model_mutant_is_caught(
    run_of: Callable[[type[Handlers]], RunResult], mutant: type[Handlers], caught: Caught
) -> None:
    result = run_of(mutant)
    assert_caught(result, caught)
    found = machine_failures(result)
    assert set(found) == {rule for rule, checks in caught.reported_by.items() if CHECK in checks}
    assert all(shrunk_steps(failures[0]) <= MOST_STEPS for failures in found.values()), found


def test_a_found_failure_is_shrunk_and_replayable(
    run_of: Callable[[type[Handlers]], RunResult],
) -> None:
    """A memory of one project found by a search of the other: a few steps."""
    (failure,) = machine_failures(run_of(OtherProjectsLeakIntoSearches))["SRCH-004"]
    assert 1 <= shrunk_steps(failure) <= MOST_STEPS, failure.observed
    assert "does not show" in failure.expected and "mem_search" in failure.expected
    assert failure.calls, "the failing example's calls are kept"
    assert failure.seed == 1
    assert failure.reproduction is not None and failure.reproduction.choices


def test_the_mem_reference_passes_the_model_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model check alone, with a fixed seed: every rule it decides was exercised, and held."""
    monkeypatch.setattr(registry, "REGISTRY", {CHECK: registry.REGISTRY[CHECK]})
    result = run_against(tmp_path, only=RULES, profile="full", seed=1)
    assert {rule: result.verdicts[rule].verdict for rule in RULES} == dict.fromkeys(RULES, "pass")
