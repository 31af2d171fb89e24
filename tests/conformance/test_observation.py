"""What a session records of a call (``Observation.recorded``): the observation numbered and
timed, whole, for the checks; and the copy its transcript keeps, a long answer cut to its
beginning and its size, as ``kept`` cuts it."""

from __future__ import annotations

from engram_conformance.conformance.observation import (
    KEPT_ANSWER_CHARS,
    KEPT_BEGINNING_CHARS,
    Observation,
)

REQUEST = {"method": "tools/call", "tool": "t", "arguments": {}, "claims": None, "meta": None}


def answered(text: str) -> Observation:
    return Observation(index=0, **REQUEST, outcome="result", text=text, is_error=False)


def test_a_short_answer_is_kept_whole_in_the_same_copy() -> None:
    numbered, kept = answered("short").recorded(7, 1.5)
    assert kept is numbered
    assert (numbered.index, numbered.latency_ms, numbered.text, numbered.cut) == (
        7,
        1.5,
        "short",
        None,
    )
    assert numbered.kept() is numbered


def test_a_long_answer_is_whole_for_the_checks_and_cut_in_the_transcript() -> None:
    long = "x" * KEPT_ANSWER_CHARS
    numbered, kept = answered(long).recorded(3, 2.0)
    assert (numbered.index, numbered.text, numbered.cut) == (3, long, None)
    assert (kept.index, kept.latency_ms, kept.text) == (3, 2.0, None)
    assert kept.cut is not None
    size, beginning = kept.cut
    assert size > KEPT_ANSWER_CHARS
    assert len(beginning) == KEPT_BEGINNING_CHARS
    assert kept == numbered.kept()


def test_a_fault_is_kept_as_it_is() -> None:
    fault = Observation(index=0, **REQUEST, outcome="fault", fault="the server closed its output")
    numbered, kept = fault.recorded(1, 10.0)
    assert kept is numbered
    assert (numbered.index, numbered.fault) == (1, "the server closed its output")
