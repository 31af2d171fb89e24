"""The harness survives every server: a failing tools/list, unreadable or huge output, a flood
of stderr, a server that ignores its end, a run past its budget. Each gets a report (or exit 2
with one line when nothing could be used) whose evidence says what happened, no traceback, a
bounded report folder, and no process or folder left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.engram_memory.plugin import CONTRACT
from engram_conformance.conformance.launching import launched
from engram_conformance.conformance.session import Session
from engram_conformance.conformance.targets.descriptor import load_descriptor
from engram_conformance.reports.document import load as load_report
from engram_conformance.spec.engram_memory import load

from .misbehaving import arguments, descriptor, run

RULES = ("HOST-020", "HOST-021", "ENV-001")


def verdicts(report_dir: Path) -> dict[str, tuple[str, str]]:
    document = load_report(report_dir / "report.json")
    return {rule.id: (rule.verdict, rule.reason or "") for rule in document.rules}


def no_traces(done: subprocess.CompletedProcess[str], tmp_path: Path) -> None:
    """No traceback, no scratch folder left behind (TMPDIR is ``tmp_path/scratch``)."""
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]
    assert not list((tmp_path / "scratch").iterdir())


@pytest.mark.parametrize(
    ("mode", "told"),
    [
        ("crash-at-list", "the server closed its output; it exited with code 4"),
        ("hang-at-list", "no answer to tools/list within 1.0 s"),
        ("malformed-list", "tools/list answered no list of tools"),
    ],
)
def test_a_failing_tools_list_is_a_verdict_with_evidence(
    tmp_path: Path, mode: str, told: str
) -> None:
    done, report_dir = run(tmp_path, mode, *RULES)
    no_traces(done, tmp_path)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stdout.startswith(f"No tools discovered: tools/list failed: {told}")
    for verdict, reason in verdicts(report_dir).values():
        assert verdict == "error"
        assert reason.startswith("not evaluated: tools/list failed"), reason
        assert told in reason
    assert (report_dir / "transcripts" / "discovery.jsonl").is_file()


def test_the_end_of_output_is_told_before_the_call_times_out(tmp_path: Path) -> None:
    """A server that closes its output at tools/list and lives on: the listing fails at once,
    told as the end of its output with the process still running, never as "no answer" (the
    transport used to wait up to 1 s for the exit status before the SDK saw the end, which
    lost to a shorter call time-out, and raced an equal one)."""
    done, report_dir = run(tmp_path, "close-at-list", "HOST-020", call_timeout_s=0.5)
    no_traces(done, tmp_path)
    told = "tools/list failed: the server closed its output; it is still running"
    assert done.stdout.startswith(f"No tools discovered: {told}"), done.stdout[:500]
    assert told in verdicts(report_dir)["HOST-020"][1]


def test_input_schemas_that_are_not_objects_are_judged(tmp_path: Path) -> None:
    """The SDK refuses such a listing; the harness reads it as sent and HOST-021 judges it."""
    done, report_dir = run(tmp_path, "schema-not-object", "HOST-020", "HOST-021")
    no_traces(done, tmp_path)
    document = load_report(report_dir / "report.json")
    rules = {rule.id: rule for rule in document.rules}
    assert rules["HOST-020"].verdict == "pass"
    assert rules["HOST-021"].verdict == "fail"
    observed = [failure.observed for failure in rules["HOST-021"].failures]
    assert any('the input schema is not an object: "none"' in text for text in observed)
    assert any("type is 'string', not 'object'" in text for text in observed)


def test_every_page_of_tools_list_is_read(tmp_path: Path) -> None:
    done, report_dir = run(tmp_path, "paged-list", "HOST-020", "HOST-024")
    no_traces(done, tmp_path)
    assert verdicts(report_dir)["HOST-020"][0] == "pass"
    assert verdicts(report_dir)["HOST-024"][0] == "pass"


@pytest.mark.parametrize(
    ("mode", "told"),
    [
        ("garbage", "the server wrote a line that is no JSON-RPC message"),
        ("garbage-unended", "the server wrote a line that is no JSON-RPC message"),
        ("invalid-utf8", "the server wrote bytes that are not UTF-8"),
        ("lone-surrogate", "the server wrote a line that is no JSON-RPC message"),
        ("huge-answer", "the server wrote a line longer than 16777216 bytes"),
        ("killed", "the server closed its output; it was killed by signal 9 (SIGKILL)"),
    ],
)
def test_unreadable_output_is_told_with_what_arrived(tmp_path: Path, mode: str, told: str) -> None:
    """Told as what arrived, never as "no answer": a line is refused from its first bytes when
    they cannot begin a JSON-RPC message, so garbage whose end comes late, or never, is not
    told as a hang when the call's time-out comes first."""
    done, report_dir = run(tmp_path, mode, "ENV-001", call_timeout_s=30)
    no_traces(done, tmp_path)
    verdict, reason = verdicts(report_dir)["ENV-001"]
    assert verdict == "error"
    assert told in reason
    assert "no answer within" not in reason
    if mode != "killed":
        assert "b'" in reason  # the first bytes, escaped
    folder = sum(path.stat().st_size for path in report_dir.rglob("*") if path.is_file())
    assert folder < 1024 * 1024, f"the report folder holds {folder} bytes"


@pytest.mark.parametrize(
    ("mode", "told"),
    [
        ("garbage-at-initialize", "the server wrote a line that is no JSON-RPC message"),
        ("silent-at-initialize", "no answer to initialize or server/discover within 3.0 s"),
    ],
)
def test_a_server_that_cannot_be_initialized_exits_2_saying_why(
    tmp_path: Path, mode: str, told: str
) -> None:
    """``startup_timeout_s`` holds over stdio, even when the call time-out is shorter."""
    done, report_dir = run(tmp_path, mode, "ENV-001", startup_timeout_s=3)
    no_traces(done, tmp_path)
    assert done.returncode == 2
    first = done.stderr.strip().splitlines()[0]
    assert first.startswith("engram-conformance: the server could not be started: ")
    assert told in first
    assert not (report_dir / "report.json").exists()


def test_a_flood_of_stderr_is_kept_bounded_and_its_tail_shown_whole(tmp_path: Path) -> None:
    """The call waits out the flood (100 MB take seconds to copy under load), and the tail is
    read once the log holds all of it."""
    done, report_dir = run(tmp_path, "stderr-flood", "ENV-001", call_timeout_s=60)
    no_traces(done, tmp_path)
    verdict, reason = verdicts(report_dir)["ENV-001"]
    assert verdict == "error"
    assert "exited with code 3" in reason
    assert reason.endswith("stderr (last lines):\nthe last line of the flood"), reason[-500:]
    assert len(done.stderr) < 64 * 1024
    assert (report_dir / "report.json").stat().st_size < 1024 * 1024


def test_a_run_ends_within_its_budget_whatever_the_server_does(tmp_path: Path) -> None:
    """Every call hangs past a long call time-out; the budget still ends the run, with the
    checks it could not finish or start ``error``. The run takes 5 to 30 s, more on a loaded
    machine; what must hold whatever the load is that it ends before one call's time-out: the
    budget, not the time-out, cut the hanging calls short."""
    report_dir = tmp_path / "report"
    call_timeout_s = 150
    target = descriptor(tmp_path, "hang", call_timeout_s=call_timeout_s)
    started = time.monotonic()
    done = subprocess.run(
        arguments(target, report_dir, "--budget", "5", "--only", "ENV,SCHEMA-020,HOST-001"),
        capture_output=True,
        text=True,
        timeout=call_timeout_s + 60,
        check=False,
    )
    elapsed = time.monotonic() - started
    assert "Traceback" not in done.stderr
    assert done.returncode == 1
    reasons = [reason for verdict, reason in verdicts(report_dir).values() if verdict == "error"]
    assert any("the time budget ran out" in reason for reason in reasons)
    assert elapsed < call_timeout_s, f"the run took {elapsed:.0f} s"


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_server_that_ignores_its_end_is_stopped_by_its_pid(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    done, report_dir = run(
        tmp_path, "stubborn", "HOST-020", env={"MISBEHAVING_PID_FILE": str(pid_file)}
    )
    no_traces(done, tmp_path)
    assert verdicts(report_dir)["HOST-020"][0] == "pass"
    assert _pids(pid_file)
    assert not any(_alive(pid) for pid in _pids(pid_file))


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupted_run_stops_its_server_and_removes_its_folder(
    tmp_path: Path, stop: signal.Signals
) -> None:
    pid_file = tmp_path / "pids"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    target = descriptor(tmp_path, "stubborn", env={"MISBEHAVING_PID_FILE": str(pid_file)})
    harness = subprocess.Popen(
        arguments(target, tmp_path / "report"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    deadline = time.monotonic() + 60
    while not _pids(pid_file) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _pids(pid_file), "the server never started"
    harness.send_signal(stop)
    _, stderr = harness.communicate(timeout=60)
    assert harness.returncode == 128 + stop
    assert "Traceback" not in stderr
    assert f"interrupted by {stop.name}" in stderr
    assert not any(_alive(pid) for pid in _pids(pid_file))
    assert not list(scratch.iterdir())


def test_the_sdks_own_tools_list_is_in_the_transcript(tmp_path: Path) -> None:
    """The SDK client lists tools by itself before it judges the answer of a tool it has not
    seen listed; the harness records that request too."""
    spec = load()
    target_file = descriptor(tmp_path, "echo")

    async def first_call() -> list[dict]:
        loaded = load_descriptor(target_file, every_settings())
        with launched(loaded, CONTRACT.host(spec, "hostile"), CONTRACT) as target:
            async with target.connect() as connection:
                session = Session(connection, 5.0)
                await session.call("engram_memory_search", {"query": "x"}, None, None)
                return [observation.to_json() for observation in session.transcript]

    transcript = anyio.run(first_call)
    assert [entry["method"] for entry in transcript] == ["tools/list", "tools/call"]
    assert transcript[0]["sent_by"] == "sdk"
    assert "sent_by" not in transcript[1]
