"""Killing the server process mid-stream loses no acknowledged capture and writes none twice.

A worker process captures in a loop and prints each answer; it is killed with SIGKILL after a
bounded number of acknowledgements. A second run retries every key from the start: each
acknowledged capture must answer ``duplicate_exact`` with its first candidate_id, the ones the
first process may or may not have committed must answer once and definitely, and the database
must hold exactly one candidate per key.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("crash_worker.py")
TOTAL = 120


def run_until_killed(state_dir: Path, kill_after: int) -> dict[int, str]:
    command = [sys.executable, str(WORKER), str(state_dir), "0", str(TOTAL)]
    acknowledged: dict[int, str] = {}
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            number, candidate_id, status = line.split()
            assert status == "committed_pending"
            acknowledged[int(number)] = candidate_id
            if len(acknowledged) == kill_after:
                process.send_signal(signal.SIGKILL)
                break
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    return acknowledged


def rerun(state_dir: Path) -> dict[int, tuple[str, str]]:
    result = subprocess.run(
        [sys.executable, str(WORKER), str(state_dir), "0", str(TOTAL)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answers = {}
    for line in result.stdout.splitlines():
        number, candidate_id, status = line.split()
        answers[int(number)] = (candidate_id, status)
    return answers


@pytest.mark.parametrize("kill_after", [7, 40, 93])
def test_kill_during_captures_loses_nothing_acknowledged(tmp_path: Path, kill_after: int) -> None:
    acknowledged = run_until_killed(tmp_path, kill_after)
    answers = rerun(tmp_path)
    assert len(answers) == TOTAL
    for number, candidate_id in acknowledged.items():
        assert answers[number] == (candidate_id, "duplicate_exact"), number
    unacknowledged = {n: a for n, a in answers.items() if n not in acknowledged}
    assert {status for _, status in unacknowledged.values()} <= {
        "duplicate_exact",
        "committed_pending",
    }
    database = sqlite3.connect(tmp_path / "memory.sqlite3")
    assert database.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    rows = database.execute("SELECT candidate_id FROM candidates").fetchall()
    assert sorted(candidate for (candidate,) in rows) == sorted(c for c, _ in answers.values())
    reserved = database.execute("SELECT COUNT(*) FROM idempotency").fetchone()[0]
    assert reserved == TOTAL
