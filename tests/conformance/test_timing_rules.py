"""Timing rules are stable, quick to judge and their evidence small.

A timing rule reads the same verdict for a slow server whether its answer comes late or not at
all within the call time-out: on a loaded machine the same server does either from run to run,
and a verdict that flipped between ``warn`` and ``error`` flipped baselines and SARIF levels
with it (SCHEMA-040, ``BaseContext.timed``). The harness gives the call up at the rule's bound,
where the verdict is known, rather than wait out the rest of the time-out. Its calls at the
bounds send megabytes: the report shows their digest, size and ends, and the transcript holds
them whole."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from engram_conformance.conformance.document import write_transcripts
from engram_conformance.conformance.runner import RunOptions
from engram_conformance.conformance.targets.json_text import json_text
from engram_conformance.conformance.targets.launch import InProcessTarget

from ..mutants.described import planted, run_described
from ..mutants.engram_memory.catalog.cost import PairwiseUniqueness
from ..mutants.mem.catalog.searching import BUSY_S
from .inprocess import checks_only, in_process_document, run_against

RULE = "SCHEMA-040"
CHECK = "calls_at_the_bounds_answer_in_time"
CALL_TIMEOUT_S = 2.0


#: The time-out of the late answer's run: an answer is late past half of it (4 s), and the flaw
#: leaves 3.5 s to the rest of the call, so that however loaded the machine the answer would
#: come within it (with 2 s, 0.5 s left, it once came after 2.2 s under load).
LATE_TIMEOUT_S = 8.0
#: Where the harness gives up a call of the late answer's run: half of its time-out.
LATE_BOUND = "no answer within 4.0 s, the bound of its timing rule"


class LateUniqueness(PairwiseUniqueness):
    """The flaw costs past half the time-out (a sleep: never less), and the answer would come
    within it (``LATE_TIMEOUT_S``)."""

    cost_s = LATE_TIMEOUT_S * 0.5625


class UnansweredUniqueness(PairwiseUniqueness):
    """The flaw costs past the time-out (a sleep: never less): the harness stops waiting
    before the answer comes."""

    cost_s = CALL_TIMEOUT_S * 2


@pytest.mark.parametrize(
    ("mutant", "timeout_s", "told"),
    [
        (LateUniqueness, LATE_TIMEOUT_S, LATE_BOUND),
        (UnansweredUniqueness, CALL_TIMEOUT_S, "no answer within 1.0 s, the bound of its"),
    ],
)
def test_a_slow_call_warns_whether_it_answers_late_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutant: type, timeout_s: float, told: str
) -> None:
    monkeypatch.setattr(InProcessTarget, "call_timeout_s", timeout_s)
    with checks_only(CHECK):
        result = run_against(tmp_path, service_mutant=mutant, only=(RULE,), recheck=False)
    verdict = result.verdicts[RULE]
    assert verdict.verdict == "warn", verdict
    failures = result.ledger.evidence[RULE].failures
    slow = [f for f in failures if "unsortable duplicate" in f.expected]
    assert slow, [f.expected for f in failures]
    assert slow[0].observed.startswith(told), slow[0].observed
    assert f"answered within {timeout_s * 500:.0f} ms" in slow[0].expected  # half the time-out


def test_over_stdio_a_slow_call_is_given_up_at_its_bound(tmp_path: Path) -> None:
    """The busy mem server answers a long phrase's search after ``BUSY_S`` (6 s). With a call
    time-out of 8 s, SRCH-011's bound is 4 s: the harness gives the call up there, and tells it,
    where waiting on would have seen the answer come, and read ``answered in`` its time."""
    assert 4.0 + 1.0 < BUSY_S < LATE_TIMEOUT_S  # a second of the machine's load to spare
    mutant = "busy-on-long-queries"
    server = planted("mem.searching", mutant)
    found = run_described(
        tmp_path, server, "SRCH-011", mutant=mutant, call_timeout_s=LATE_TIMEOUT_S, contract="mem"
    )
    rule = found["SRCH-011"]
    assert rule.verdict == "warn", rule
    told = [failure.observed for failure in rule.failures]
    assert told and all(observed.startswith(LATE_BOUND) for observed in told), told
    assert all("the call time-out is 8.0 s" in observed for observed in told), told


def test_calls_at_the_bounds_are_shown_by_digest_and_kept_whole_in_the_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(InProcessTarget, "call_timeout_s", LATE_TIMEOUT_S)
    options = RunOptions(only=(RULE,), recheck=False)
    with checks_only(CHECK):
        result = run_against(
            tmp_path / "state", service_mutant=LateUniqueness, only=options.only, recheck=False
        )
    paths = write_transcripts(result, tmp_path)
    document = in_process_document(result, options, paths)
    assert len(document.to_json()) < 256 * 1024
    rule = next(record for record in document.rules if record.id == RULE)
    shown = [call for failure in rule.failures for call in failure.calls]
    cut = [call.arguments_cut for call in shown if call.arguments_cut is not None]
    assert cut, shown
    assert all(call.arguments is None for call in shown if call.arguments_cut is not None)
    transcript = (tmp_path / paths[CHECK]).read_text(encoding="utf-8").splitlines()
    sent = [json_text(json.loads(line)["arguments"]) for line in transcript]
    digests = {hashlib.sha256(text.encode("ascii")).hexdigest(): text for text in sent}
    for arguments in cut:
        whole = digests[arguments.sha256]
        assert arguments.bytes == len(whole) > 100_000
        assert whole.startswith(arguments.begins) and whole.endswith(arguments.ends)
