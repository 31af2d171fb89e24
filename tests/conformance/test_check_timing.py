"""Where a run's time goes (issue 26, item 5): each check's wall time, the calls it made and the
time it spent waiting, on purpose (``BaseContext.wait``) and for calls that timed out, into the
report, per rule and per run.
Only lower bounds and counts are asserted: a sleep is never shorter than asked."""

from __future__ import annotations

from pathlib import Path

from engram_conformance.conformance.check_context import BaseContext
from engram_conformance.conformance.document import rule_timing, run_timing
from engram_conformance.conformance.ledger import CheckTiming, Ledger
from engram_conformance.conformance.observation import Observation
from engram_conformance.conformance.session import Session

from .inprocess import run_against

WAITING = "capture_replay_precedes_clock_checks"  # IDEM-009: waits for a retention to end
CALLING = "malformed_or_future_confirmation_fails_the_gate"  # GATE-006: calls, no wait


def test_each_check_s_time_calls_and_waits_are_measured(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("IDEM-009", "GATE-006"), recheck=False)
    timings = result.ledger.timings
    assert set(timings) == {WAITING, CALLING}
    waiting, calling = timings[WAITING], timings[CALLING]
    assert waiting.waited_s >= 1.0 and waiting.seconds >= waiting.waited_s
    assert waiting.calls >= 2
    assert calling.waited_s == 0 and calling.calls >= 2 * 18  # 18 cases on each gated tool


def test_a_rule_sums_the_checks_that_decided_it_and_the_run_sums_them_all() -> None:
    timings = {"a": CheckTiming(1.25, 3, 1.0), "b": CheckTiming(0.5, 7, 0.0)}
    rule = rule_timing(timings, ["a", "b", "never_ran"])
    assert (rule.time_s, rule.calls, rule.waited_s) == (1.75, 10, 1.0)
    assert rule_timing(timings, ["never_ran"]) is None
    run = run_timing(timings)
    assert (run.time_s, run.calls, run.waited_s) == (1.75, 10, 1.0)
    assert [check.check for check in run.checks] == ["a", "b"]  # slowest first
    assert run_timing({}) is None


def test_a_call_that_timed_out_counts_as_waiting() -> None:
    """What a check waited for an answer that never came is waiting too, beside its sleeps."""
    base = {"method": "tools/call", "tool": "t", "arguments": {}, "claims": None, "meta": None}
    answered = Observation(index=0, outcome="result", latency_ms=700.0, **base)
    timed_out = Observation(index=1, outcome="fault", timed_out=True, latency_ms=2500.0, **base)
    session = Session(connection=None, call_timeout_s=2.5)  # type: ignore[arg-type]
    context = BaseContext(
        check="c", spec=None, policy=None, session=session, ledger=Ledger(), run_id="r", seed=1
    )
    session.transcript += [answered, timed_out]  # the check's calls
    assert context.waited_s == 2.5
