"""HOST-025's check fires on a server that drops requests with a bad id, takes a repeated key
silently or dies on deep nesting (``catalog/framing.py``), and SCHEMA-032, which also goes over
the raw channel, passes beside it. Over stdio: a server in process reads no text."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance import runner
from engram_conformance.conformance.targets import raw_channel

from ..caught import assert_caught
from ..described import planted, run_described
from .catalog.framing import STDIO

#: The rules run: HOST-025, and SCHEMA-032 beside it (silence is bounded by a 3 s call timeout).
ONLY = "HOST-025,SCHEMA-032"
#: The runner's re-check, which the mutants' runs leave out (``conftest._no_recheck``).
RECHECK = runner._RunSteps.recheck


@pytest.mark.parametrize("mutant", sorted(STDIO))
def test_framing_mutant_is_caught(tmp_path: Path, mutant: str) -> None:
    server = planted("engram_memory.framing", mutant)
    found = run_described(tmp_path, server, ONLY, mutant=mutant, call_timeout_s=3)
    assert_caught(found, STDIO[mutant][1])


def test_requests_left_unanswered_are_waited_for_once_per_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that never answers a request with a bad id (four of them) gets the same verdict,
    and costs one time-out per run of the check, not one per request: each probe hands over
    as soon as the ping sent after it is answered, and the check waits for the four at once,
    in the run and again in its re-check (the re-check's time is that one wait too)."""
    probes: list[tuple[raw_channel.Probe, bool]] = []  # and whether it came back in time
    waits: list[tuple[int, float]] = []
    probe, settle = raw_channel._Stdio.probe, raw_channel._Stdio.settle

    async def probing(self: Any, *arguments: Any) -> raw_channel.Probe:
        sent = await probe(self, *arguments)
        probes.append((sent, time.monotonic() < sent.deadline))
        return sent

    async def settling(self: Any, sent: list[raw_channel.Probe]) -> None:
        outstanding = sum(1 for one in sent if not one.settled)
        started = time.monotonic()
        await settle(self, sent)
        waits.append((outstanding, time.monotonic() - started))

    monkeypatch.setattr(raw_channel._Stdio, "probe", probing)
    monkeypatch.setattr(raw_channel._Stdio, "settle", settling)
    monkeypatch.setattr(runner._RunSteps, "recheck", RECHECK)
    timeout_s = 3.0
    server = planted("engram_memory.framing", "drops-bad-ids")
    found = run_described(tmp_path, server, "HOST-025", mutant="drops-bad-ids", call_timeout_s=3)
    assert_caught(found, STDIO["drops-bad-ids"][1])
    assert [outstanding for outstanding, _ in waits] == [4, 4]  # the run, then its re-check
    assert all(seconds <= timeout_s + 1 for _, seconds in waits)
    unanswered = [(one, early) for one, early in probes if one.answer is None]
    assert len(unanswered) == 8  # four in the run, four in its re-check
    # each handed over once the ping after it was answered, before its time-out ran out
    assert all(one.ping_ms is not None and early for one, early in unanswered)
    failures = found["HOST-025"].failures
    assert len(failures) == 4
    assert all("a ping sent right after it was answered" in f.observed for f in failures)
