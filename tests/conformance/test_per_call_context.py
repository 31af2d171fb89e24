"""The per-call checks' context, contract-free: ``expect`` records as a scripted check's does,
and a failure shows the one call judged and the scripted check it was made during."""

from __future__ import annotations

from engram_conformance.conformance.ledger import Ledger
from engram_conformance.conformance.observation import Observation
from engram_conformance.conformance.per_call_context import PerCallContext


def context(ledger: Ledger) -> PerCallContext:
    observed = Observation(3, "tools/call", "toy_echo", {"text": "hi"}, None, None, "result")
    return PerCallContext(
        check="echo_is_judged",
        spec=None,
        observed=observed,
        memory={},
        ledger=ledger,
        during="echo_answers_its_text",
    )


def test_a_pass_is_recorded_against_the_check() -> None:
    ledger = Ledger()
    assert context(ledger).expect("TOY-001", True, expected="x", observed="y") is True
    assert ledger.evidence["TOY-001"].passed == 1
    assert ledger.evidence["TOY-001"].checks == {"echo_is_judged"}


def test_a_failure_shows_the_call_judged_and_the_check_it_was_made_during() -> None:
    ledger = Ledger()
    ctx = context(ledger)
    assert ctx.expect("TOY-001", False, expected="the text", observed={"text": "HI"}) is False
    [failure] = ledger.evidence["TOY-001"].failures
    assert (failure.check, failure.during) == ("echo_is_judged", "echo_answers_its_text")
    assert failure.observed == repr({"text": "HI"})
    assert failure.calls == (ctx.observed.to_json(),)
