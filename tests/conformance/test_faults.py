"""A server that crashes, hangs, speaks garbage or offers no memory tool gets a report, not a
traceback: its rules are ``error`` with the evidence, and the exit code says the gate failed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from engram_conformance.reports.document import load as load_report

FIXTURE = Path(__file__).with_name("fixtures") / "misbehaving_server.py"
EXECUTABLE = Path(sys.executable).with_name("engram-conformance")


def descriptor(tmp_path: Path, mode: str) -> Path:
    path = tmp_path / f"{mode}.toml"
    command = json.dumps([sys.executable, str(FIXTURE), mode])
    path.write_text(
        f'name = "misbehaving-{mode}"\n[server]\ntransport = "stdio"\ncommand = {command}\n'
        "call_timeout_s = 1\nstartup_timeout_s = 10\n",
        encoding="utf-8",
    )
    return path


def run(tmp_path: Path, mode: str, *only: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    report_dir = tmp_path / "report"
    arguments = [
        str(EXECUTABLE),
        "run",
        "--target",
        str(descriptor(tmp_path, mode)),
        "--report-dir",
        str(report_dir),
        *(f"--only={o}" for o in only),
    ]
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=120, check=False)
    return done, report_dir


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


def test_a_server_without_memory_tools_is_named_so(tmp_path: Path) -> None:
    done, report_dir = run(tmp_path, "no-memory-tools")
    assert done.returncode == 1
    first_line = done.stdout.splitlines()[0]
    assert first_line.startswith("No Engram memory tools discovered")
    document = load_report(report_dir / "report.json")
    assert document.conformance.klass if hasattr(document.conformance, "klass") else True
    verdicts = {rule.id: rule.verdict for rule in document.rules}
    assert verdicts["HOST-020"] == "fail"
    assert (report_dir / "summary.md").read_text(encoding="utf-8").startswith(first_line)


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
