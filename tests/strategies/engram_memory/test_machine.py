"""The lifecycle state machine finds bugs planted in the reference, and none in the reference.

The runs register the machine's check alone (the per-call checks still watch every call), so
that what it reports is not crowded out by the scripted checks of the same rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks import model_check, registry
from engram_conformance.conformance.engram_memory.checks.model_check import lifecycle_model_holds
from engram_conformance.conformance.engram_memory.plugin import CONTRACT
from engram_conformance.conformance.launching import run_launched
from engram_conformance.conformance.runner import RunOptions, RunResult
from engram_conformance.reference_impl.engram_memory.envelope import success
from engram_conformance.spec.engram_memory import load
from engram_conformance.spec.engram_memory.tool_names import ADMIT, GET, WITHDRAW
from engram_conformance.strategies.engram_memory.machines import RULES

from ...conformance.inprocess import broken_verdict, run_against
from ...conformance.test_binding_adapters import ENV_BOUND_REFERENCE
from ...mutants.engram_memory.answers import SOME_DIGEST, value
from ...mutants.engram_memory.base import ContextProxy, ServiceProxy, in_scope, plant
from ...mutants.engram_memory.catalog.idempotency import (
    KeyedPerTool,
    ReplayAnswersNewCandidate,
    racy_captures,
)
from ...mutants.engram_memory.catalog.lifecycle import StaleReadCache
from ...mutants.engram_memory.catalog.paging import (
    CursorRepeatsTheLastRecord,
    RanksRestartOnEachPage,
)

CHECK = lifecycle_model_holds.__name__
#: The longest shrunk example accepted as a minimal reproduction.
MAX_STEPS = 10
#: Time enough for the search and its shrinking to end by their counts on a slow machine.
SHRINK_SECONDS = 300.0
#: Shrinking's patience here, below the check's own: a search stopped sooner is the same
#: search cut short (same seed, same examples up to the stop), and the finding kept only gets
#: smaller as shrinking goes on, so a finding within ``MAX_STEPS`` here is one under the
#: check's own patience too.
SHRINK_PATIENCE = 20
#: The examples of the search that finds nothing in the reference, half the full profile's:
#: seed 1 has exercised every rule the machine decides by its 70th (the reference's model is
#: searched further by the fuzz campaign's tests).
CLEAN_EXAMPLES = 100
#: The examples over stdio, one reference process per identity: each costs some three process
#: starts, and the core rules are exercised by the third.
STDIO_EXAMPLES = 4


class ForeignGetLeaks(ContextProxy):
    """get finds a record by its id alone: another scope's record is returned."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.owners: dict[str, Any] = {}

    def rebind(self, tool: str, arguments: Any, context: Any) -> Any:
        owner = self.owners.get(arguments.get("record_id")) if tool == GET else None
        return context if owner is None else in_scope(context, owner)

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        record = value(envelope).get("outcome", {}).get("record_id")
        if tool == ADMIT and record:
            self.owners[record] = context.scope
        return envelope


class AdmitsWithdrawn(ServiceProxy):
    """Admission does not look at a withdrawn candidate's state: it answers accepted."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.withdrawn: set[str] = set()

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        envelope = self.inner.call(tool, arguments, context)
        if tool == WITHDRAW and envelope["ok"]:
            self.withdrawn.add(arguments["candidate_id"])
        refused = envelope.get("error", {}).get("code") == "ILLEGAL_TRANSITION"
        if tool == ADMIT and refused and arguments["candidate_id"] in self.withdrawn:
            outcome = {
                "status": "accepted",
                "candidate_id": arguments["candidate_id"],
                "record_id": "mem_" + "b" * 52,
                "cursor": "0",
                "decision_receipt_digest": SOME_DIGEST,
                "transaction_receipt_digest": SOME_DIGEST,
            }
            return success({"outcome": outcome, "replayed": False}, context.audit_id)
        return envelope


@pytest.fixture(autouse=True)
def machine_only(monkeypatch: pytest.MonkeyPatch) -> None:
    registry.all_checks()  # registers every check, the machine's among them
    monkeypatch.setattr(registry, "REGISTRY", {CHECK: registry.REGISTRY[CHECK]})


def machine_failures(result: RunResult) -> dict[str, list[Any]]:
    """Rule -> the failures the machine's check recorded against it."""
    return {
        rule: failures
        for rule, evidence in result.ledger.evidence.items()
        if (failures := [f for f in evidence.failures if f.check == CHECK])
    }


#: Planted bug -> (the mutant that plants it, the rule it breaks).
PLANTED = {
    "replay-answers-a-new-candidate": (ReplayAnswersNewCandidate, "IDEM-001"),
    "conflict-undetected-across-tools": (KeyedPerTool, "IDEM-007"),
    "foreign-get-leaks": (ForeignGetLeaks, "SCOPE-001"),
    "withdrawn-candidate-admitted": (AdmitsWithdrawn, "LIFE-012"),
    "tombstoned-record-returned": (StaleReadCache, "LIFE-017"),
    "racy-captures": (racy_captures, "IDEM-013"),
    # at one record a page the cursor points back before the first record: an error
    "cursor-points-back-a-record": (CursorRepeatsTheLastRecord, "PAGE-001"),
    "ranks-restart-on-each-page": (RanksRestartOnEachPage, "PAGE-003"),
}


@pytest.mark.parametrize(("mutant", "rule"), PLANTED.values(), ids=PLANTED.keys())
def test_the_machine_finds_a_planted_bug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutant: Any, rule: str
) -> None:
    # shrinking ends by patience (a count), not by the clock: the result does not depend on
    # how fast this machine runs the steps
    monkeypatch.setattr(model_check, "MACHINE_SECONDS", SHRINK_SECONDS)
    monkeypatch.setattr(model_check, "SHRINK_PATIENCE", SHRINK_PATIENCE)
    planted = plant(mutant, monkeypatch, tmp_path)
    result = run_against(tmp_path, only=(rule,), profile="full", **planted)
    found = machine_failures(result)
    assert rule in found, found.keys()
    failure = found[rule][0]
    steps = int(failure.observed.split("shrunk to ")[1].split(" steps")[0])
    assert 1 <= steps <= MAX_STEPS, failure.observed
    assert failure.calls, "the failing example's calls are kept"
    assert failure.seed == 1
    assert result.verdicts[rule].verdict == broken_verdict(rule)


def test_the_machine_finds_nothing_in_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every rule the machine decides was exercised, and held. Bounded by its examples, not
    the clock: under a load of 11 its 40 s ran out before SEARCH-009 was exercised."""
    monkeypatch.setattr(model_check, "MACHINE_SECONDS", SHRINK_SECONDS)
    monkeypatch.setattr(model_check, "MAX_EXAMPLES", CLEAN_EXAMPLES)
    result = run_against(tmp_path, only=RULES, profile="full")
    assert {rule: result.verdicts[rule].verdict for rule in RULES} == dict.fromkeys(RULES, "pass")


def test_the_machine_runs_through_the_process_env_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over stdio, one reference process per identity on one state folder (three a scope set,
    each example a new set, so a few examples, bounded by their count): the model holds, and
    what the examples exercised passes. Confirmations that do not hold cannot be sent through
    this binding, so the gate's rules are left to other checks."""
    monkeypatch.setattr(model_check, "MACHINE_SECONDS", SHRINK_SECONDS)
    monkeypatch.setattr(model_check, "MAX_EXAMPLES", STDIO_EXAMPLES)
    options = RunOptions(profile="full", only=RULES, seed=1)
    result, _ = run_launched(CONTRACT, load(), ENV_BOUND_REFERENCE, options)
    assert not machine_failures(result)
    verdicts = {rule: result.verdicts[rule].verdict for rule in RULES}
    assert set(verdicts.values()) <= {"pass", "error"}
    core = ("IDEM-001", "LIFE-001", "LIFE-003", "SEARCH-001", "SCOPE-001", "SCOPE-004")
    assert {rule: verdicts[rule] for rule in core} == dict.fromkeys(core, "pass")
    assert not any(verdicts[rule] == "pass" for rule in RULES if rule.startswith("GATE-"))
