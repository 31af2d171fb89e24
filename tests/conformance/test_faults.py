"""A server that crashes, hangs, speaks garbage or offers no memory tool gets a report, not a
traceback: its rules are ``error`` with the evidence, and the exit code says the gate failed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from engram_conformance.conformance.exceptions import StartupFailed
from engram_conformance.conformance.targets.descriptor import TargetDescriptor
from engram_conformance.conformance.targets.launch import LaunchedTarget, Workspace
from engram_conformance.reports.document import load as load_report

from .misbehaving import EXECUTABLE, FIXTURE, run


@pytest.mark.parametrize("mode", ["crash", "hang", "garbage"])
def test_a_faulting_server_yields_error_verdicts_and_a_report(tmp_path: Path, mode: str) -> None:
    done, report_dir = run(tmp_path, mode, "ENV-001", "ENV-002")
    assert "Traceback" not in done.stderr + done.stdout
    assert done.returncode == 1, done.stdout + done.stderr
    document = load_report(report_dir / "report.json")
    verdicts = {rule.id: rule for rule in document.rules}
    for rule_id in ("ENV-001", "ENV-002"):
        assert verdicts[rule_id].verdict == "error"
        assert "the server faulted" in (verdicts[rule_id].reason or "")


def test_an_error_carries_the_call_under_way_and_its_transcript(tmp_path: Path) -> None:
    """A server that hangs leaves no failure to show: the error's evidence is the call it never
    answered, as sent, the transcript and the command that sends the calls again (issue 26)."""
    done, report_dir = run(tmp_path, "hang", "ENV-001")
    document = load_report(report_dir / "report.json")
    [rule] = [rule for rule in document.rules if rule.id == "ENV-001"]
    assert rule.verdict == "error" and rule.error is not None, done.stdout
    assert rule.error.check == "every_tool_answers_envelopes"
    [call] = rule.error.calls
    assert call.answer == {"fault": "no answer within 1.0 s"}
    transcript = report_dir / (rule.error.transcript or "")
    sent = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert (call.tool, call.arguments) in [(entry["tool"], entry["arguments"]) for entry in sent]
    assert rule.error.reproduce == (
        f"engram-conformance replay {transcript} --target {tmp_path / 'hang.toml'} "
        "--contract engram-memory"
    )
    summary = (report_dir / "summary.md").read_text(encoding="utf-8")
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    for shown in (summary, page):
        assert "Call under way" in shown and rule.error.transcript in shown
        assert rule.error.reproduce in shown
    assert f"→ {call.tool} " in page


def test_a_server_without_memory_tools_is_named_so(tmp_path: Path) -> None:
    done, report_dir = run(tmp_path, "no-memory-tools")
    assert done.returncode == 1
    first_line = done.stdout.splitlines()[0]
    assert first_line.startswith("No Engram memory tools discovered")
    document = load_report(report_dir / "report.json")
    assert document.conformance.conformance_class == "none"
    verdicts = {rule.id: rule.verdict for rule in document.rules}
    # HOST-020 is a profile rule (a missing tool is legitimate): warn; the class fails the gate
    assert verdicts["HOST-020"] == "warn"
    assert document.exit_code == 1
    assert (report_dir / "summary.md").read_text(encoding="utf-8").startswith(first_line)
    # no Engram memory server: only discovery is checked, every other rule is not applicable
    assert document.conformance.tools_listed == ("echo",)
    others = [rule for rule in document.rules if rule.id != "HOST-020"]
    assert {rule.verdict for rule in others} == {"not_applicable"}
    assert all(rule.reason for rule in others)  # each says why
    assert any(rule.reason.startswith("no Engram memory tools discovered") for rule in others)


def test_a_server_that_cannot_start_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(
        'name = "x"\n[server]\ntransport = "stdio"\ncommand = ["/nonexistent/server"]\n'
    )
    done = subprocess.run(
        [str(EXECUTABLE), "run", "--target", str(path), "--report-dir", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "could not be started" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_descriptor_reads_environment_variables(tmp_path: Path) -> None:
    """``{env[NAME]}`` in a descriptor is the variable's value (say, where a server is
    installed); an unset variable means the run cannot be made: exit 2, the variable named."""
    path = tmp_path / "env.toml"
    command = json.dumps(
        [sys.executable, "{env[ENGRAM_TEST_FIXTURES]}/misbehaving_server.py", "no-memory-tools"]
    )
    path.write_text(f'name = "x"\n[server]\ntransport = "stdio"\ncommand = {command}\n')
    arguments = [str(EXECUTABLE), "run", "--target", str(path), "--only", "HOST-020"]
    arguments += ["--report-dir", str(tmp_path / "r")]
    environment = {k: v for k, v in os.environ.items() if k != "ENGRAM_TEST_FIXTURES"}
    unset = subprocess.run(arguments, capture_output=True, text=True, timeout=60, env=environment)
    assert unset.returncode == 2
    assert "the environment variable ENGRAM_TEST_FIXTURES is not set" in unset.stderr
    assert "Traceback" not in unset.stderr
    environment["ENGRAM_TEST_FIXTURES"] = str(FIXTURE.parent)
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=60, env=environment)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("No Engram memory tools discovered")


def test_a_descriptor_reads_files_of_the_state_folder(tmp_path: Path) -> None:
    """``{file[PATH]}`` is the text of a file, a relative PATH in the run's state folder (the
    token a server the harness starts makes there); one that cannot be read means the run
    cannot be made."""
    token = "Bearer {file[http.token]}"
    descriptor = TargetDescriptor(name="x", transport="http", url="http://127.0.0.1:1/mcp")
    target = LaunchedTarget(descriptor, Workspace(tmp_path, None))
    with pytest.raises(StartupFailed, match=r"cannot read .*http\.token"):
        target.fill(token)
    (target.workspace.state_dir / "http.token").write_text("s3cr3t-token\n")
    assert target.fill(token) == "Bearer s3cr3t-token"
    absolute = tmp_path / "elsewhere"
    absolute.write_text("other")
    assert target.fill(f"{{file[{absolute}]}}") == "other"
