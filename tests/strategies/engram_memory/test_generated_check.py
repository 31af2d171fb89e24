"""The generated-arguments check holds on the reference and finds a bug planted in it.

The runs register that check alone (the per-call checks still watch every call), as the machine's
tests do, so that what it reports is not crowded out by the scripted checks of the same rules.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks import generated, registry
from engram_conformance.conformance.engram_memory.checks.generated import (
    CHECK_RULES,
    RULES,
    generated_arguments_are_answered_as_labelled,
)
from engram_conformance.conformance.runner import RunResult
from engram_conformance.spec.engram_memory import load
from engram_conformance.strategies.engram_memory.broken_arguments import breakages

from ...conformance.inprocess import broken_verdict, run_against
from ...mutants.engram_memory.catalog.schema import NullMeansAbsent

CHECK = generated_arguments_are_answered_as_labelled.__name__


@pytest.fixture(autouse=True)
def generated_only(monkeypatch: pytest.MonkeyPatch) -> None:
    registry.all_checks()
    monkeypatch.setattr(registry, "REGISTRY", {CHECK: registry.REGISTRY[CHECK]})
    # bounded by its examples and shrinking patience (counts), not by the clock: what the
    # search finds does not depend on how loaded this machine is (60 s ran out under load 11)
    monkeypatch.setattr(generated, "SECONDS", 600.0)


def failures(result: RunResult) -> dict[str, list[Any]]:
    """Rule -> the failures the generated check recorded against it."""
    return {
        rule: found
        for rule, evidence in result.ledger.evidence.items()
        if (found := [f for f in evidence.failures if f.check == CHECK])
    }


#: Rules a generated object cannot decide: those that need several faults or calls (the order
#: of the argument checks, nothing written).
NOT_HERE = frozenset({"SCHEMA-011", "XREF-010"})


def test_the_rules_written_out_are_those_the_breakage_catalogues_offer() -> None:
    """The testable SCHEMA and XREF rules the catalogues break the spec's valid examples by (so,
    what ``broken_arguments`` can produce), but for ``NOT_HERE``: the check's rules, in order."""
    spec = load()
    offered = {
        breakage.rule
        for example in spec.examples
        if example.valid
        for breakage in breakages(spec, example.tool, example.arguments)
    }
    worked_out = sorted(
        rule
        for rule in offered - NOT_HERE
        if spec.rules[rule].family in ("SCHEMA", "XREF") and spec.rules[rule].testable
    )
    assert list(RULES) == worked_out


def test_the_rules_are_those_generated_objects_can_break() -> None:
    # lone surrogates go over the raw channel, byte-exact: SCHEMA-032 is decided here too
    assert {"SCHEMA-001", "SCHEMA-032", "XREF-001", "XREF-011"} <= set(RULES)
    assert not {"SCHEMA-011", "XREF-010", "RET-004"} & set(RULES)
    # the check also judges the code of the row, valid objects and the order of the checks
    assert set(CHECK_RULES) - set(RULES) == {"SCHEMA-035", "SCHEMA-039", "HOST-016", "GATE-011"}


def test_the_reference_answers_every_generated_object_as_labelled(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=RULES, profile="full")
    assert failures(result) == {}
    verdicts = {rule: result.verdicts[rule].verdict for rule in RULES}
    # a rule no generated object of this bounded search broke has no evidence here (error);
    # the scripted checks of the full run decide it
    assert set(verdicts.values()) <= {"pass", "error"}, verdicts
    assert list(verdicts.values()).count("pass") >= 15, verdicts


def test_a_planted_bug_is_found(tmp_path: Path) -> None:
    """Without the recheck: what the re-check and the reproduction file do with the example is
    tested on its own (``test_generated_replay.py``), whose search finds ``OpenSchema``'s bug
    (SCHEMA-001) and is judged there by ``assert_found`` too."""
    result = run_against(
        tmp_path, service_mutant=NullMeansAbsent, only=RULES, profile="full", recheck=False
    )
    assert_found(result, NullMeansAbsent, "SCHEMA-002")


def assert_found(result: RunResult, mutant: type, rule: str) -> None:
    """``mutant``'s bug was found (``rule`` alone), shrunk and kept with its seed and its example
    by the search itself."""
    found = failures(result)
    assert set(found) == {rule}, found.keys()
    failure = found[rule][0]
    assert len(failure.calls) == 1, "the smallest failing object's call is kept"
    assert rule in failure.expected and "shrunk" in failure.expected
    sent = failure.calls[0]["arguments"]
    assert len(json.dumps(sent)) < 300, f"the kept object is a shrunk one: {sent}"
    if mutant is NullMeansAbsent:
        assert None in _values(sent), sent
    assert failure.seed == 1
    assert failure.reproduction is not None
    assert failure.reproduction.part == f"{failure.calls[0]['tool']}/broken"
    assert result.verdicts[rule].verdict == broken_verdict(rule)


def _values(document: Any) -> list[Any]:
    if isinstance(document, dict):
        return [v for item in document.values() for v in [item, *_values(item)]]
    if isinstance(document, list):
        return [v for item in document for v in [item, *_values(item)]]
    return []


def test_out_of_time_each_part_ends_at_its_first_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no time left, each part of the search (a tool's broken or valid objects) ends at the
    first example Hypothesis starts: it asks once whether the search is spent, where rejecting
    the example made Hypothesis start hundreds more before it gave up on the part."""
    monkeypatch.setattr(generated, "SECONDS", 0.0)
    asked: list[str] = []
    spent = generated.Sender.spent

    def counted(sender: generated.Sender) -> bool:
        asked.append(sender.part or "")
        return spent(sender)

    monkeypatch.setattr(generated.Sender, "spent", counted)
    run_against(tmp_path, only=RULES, profile="full", recheck=False)
    parts = [f"{t}/{k}" for t in generated.searched_tools(load()) for k in generated.KINDS]
    assert asked == parts
