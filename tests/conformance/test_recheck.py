"""Noise control: a failure is checked again alone before it may fail the gate; one that does
not recur is reported flaky, with both transcripts, and passes the gate."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.document import build_document, write_transcripts
from engram_conformance.conformance.engram_memory.checks import model_check
from engram_conformance.conformance.engram_memory.checks.model_check import lifecycle_model_holds
from engram_conformance.conformance.runner import RunOptions, RunResult
from engram_conformance.conformance.targets.launch import InProcessTarget
from engram_conformance.reports import ReportDocument, RuleRecord
from engram_conformance.spec.engram_memory import load

from ..mutants.engram_memory.base import ServiceProxy
from ..mutants.engram_memory.catalog.envelope import ExtraEnvelopeField
from ..mutants.engram_memory.catalog.idempotency import ReplayAnswersNewCandidate
from .inprocess import checks_only, run_against


class ShapelessAtFirst(ServiceProxy):
    """The first successful answers lack output.schema_version (ENV-001), then never again: a
    fault of a warming-up server, not one a check can make recur."""

    CALLS_WRONG = 3

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.answered = itertools.count()

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        if envelope["ok"] and next(self.answered) < self.CALLS_WRONG:
            return {**envelope, "output": {"value": envelope["output"]["value"]}}
        return envelope


def document(result: RunResult, report_dir: Path, **options: Any) -> ReportDocument:
    return build_document(
        load(),
        result,
        RunOptions(**options),
        InProcessTarget("reference-in-process", lambda: None),
        descriptor=None,
        command="engram-conformance run",
        baseline=None,
        transcript_paths=write_transcripts(result, report_dir),
    )


def rule_of(report: ReportDocument, rule_id: str) -> RuleRecord:
    return next(rule for rule in report.rules if rule.id == rule_id)


def test_a_failure_that_does_not_recur_is_flaky_and_passes_the_gate(tmp_path: Path) -> None:
    result = run_against(tmp_path / "state", service_mutant=ShapelessAtFirst, only=("ENV",))
    assert result.rechecked.outcomes["ENV-001"] == "flaky"
    assert "confirmed" not in result.rechecked.outcomes.values()
    report = document(result, tmp_path / "report", only=("ENV",))
    rule = rule_of(report, "ENV-001")
    assert rule.verdict == "fail" and rule.flaky and rule.recheck == "flaky"
    assert rule.failures[0].transcript != rule.recheck_transcript
    for transcript in (rule.failures[0].transcript, rule.recheck_transcript):
        assert transcript is not None
        assert (tmp_path / "report" / transcript).is_file()
    assert report.exit_code == 0


def test_a_failure_that_recurs_is_confirmed_and_fails_the_gate(tmp_path: Path) -> None:
    only = ("IDEM-001",)
    result = run_against(tmp_path / "state", service_mutant=ReplayAnswersNewCandidate, only=only)
    assert result.rechecked.outcomes["IDEM-001"] == "confirmed"
    report = document(result, tmp_path / "report", only=only)
    rule = rule_of(report, "IDEM-001")
    assert not rule.flaky and rule.recheck == "confirmed"
    assert rule.recheck_transcript is None
    assert report.exit_code == 1


def test_a_warning_is_not_checked_again(tmp_path: Path) -> None:
    """ENV-003 (profile) broken on every answer: a ``warn``, which never fails the gate, so no
    re-check runs for it; the run's must rules still pass, and nothing else was re-checked."""
    result = run_against(tmp_path / "state", service_mutant=ExtraEnvelopeField, only=("ENV",))
    assert result.verdicts["ENV-003"].verdict == "warn"
    assert result.rechecked.outcomes == {}
    assert not [name for name in result.transcripts if ".recheck" in name]
    report = document(result, tmp_path / "report", only=("ENV",))
    rule = rule_of(report, "ENV-003")
    assert rule.recheck is None and not rule.flaky
    assert report.exit_code == 0


def test_a_machine_failure_is_rechecked_on_its_own_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lifecycle machine's finding runs again as its shrunk example, not a new search.
    How far it was shrunk does not matter here: shrinking stops at the first example that
    makes it no smaller."""
    monkeypatch.setattr(model_check, "SHRINK_PATIENCE", 0)
    with checks_only(lifecycle_model_holds.__name__):
        result = run_against(
            tmp_path, service_mutant=ReplayAnswersNewCandidate, only=("IDEM-001",), profile="full"
        )
    assert result.rechecked.outcomes["IDEM-001"] == "confirmed"
    rechecks = [name for name in result.transcripts if ".recheck." in name]
    assert f"{lifecycle_model_holds.__name__}.recheck.IDEM-001" in rechecks


def test_no_recheck_leaves_the_failure_unjudged(tmp_path: Path) -> None:
    result = run_against(tmp_path, service_mutant=ShapelessAtFirst, only=("ENV",), recheck=False)
    assert result.rechecked.outcomes == {}
    assert result.verdicts["ENV-001"].verdict == "fail"


def test_the_progress_names_each_recheck_after_the_checks(tmp_path: Path) -> None:
    """The time a re-check takes after the last check is shown as a re-check, not as silence."""
    shown: list[tuple[str, int, int]] = []
    run_against(
        tmp_path,
        service_mutant=ReplayAnswersNewCandidate,
        only=("IDEM-001",),
        progress=lambda check, done, total: shown.append((check.id, done, total)),
    )
    rechecks = [entry for entry in shown if entry[0].startswith("re-check: ")]
    assert rechecks and shown[-len(rechecks) :] == rechecks
    assert [done for _, done, _ in rechecks] == list(range(1, len(rechecks) + 1))
    assert all(total == len(rechecks) for _, _, total in rechecks)
