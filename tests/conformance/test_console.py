"""What ``run`` says on the terminal (issue 26, item 3), as pytest does: the summary naming the
subset run, a short summary of every rule that needs a look (warnings too), a final line of
counts, time and exit code, coloured only where colour is wanted; -q, -v, -x and --lf."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.runner import STOPPED_AT_FIRST_FAIL

ECHO = f"{sys.executable} {Path(__file__).parent / 'fixtures' / 'misbehaving_server.py'} echo"


def _run(report: Path, *options: str, color: bool = False) -> tuple[int, str]:
    arguments = ["run", "--stdio", ECHO, "--report-dir", str(report), *options]
    result = CliRunner().invoke(main, arguments, color=color)
    return result.exit_code, result.stdout


def _report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    """A run stopped at its first fail (-x) against a server that echoes every call."""
    report = tmp_path_factory.mktemp("console") / "report"
    return (report, *_run(report, "-x"))


def test_the_summary_names_the_subset_run(tmp_path: Path) -> None:
    code, output = _run(tmp_path, "--only", "ENV")
    rules = len(_report(tmp_path)["rules"])
    assert code == 1 and f"(only ENV: {rules} of " in output.splitlines()[0]


def test_a_short_summary_and_a_final_line_of_counts(stopped: tuple[Path, int, str]) -> None:
    _, code, output = stopped
    assert code == 1
    lines = output.splitlines()
    assert "short summary:" in lines
    assert any(line.startswith("  FAIL  ENV-") for line in lines)
    final = next(line for line in lines if line.startswith("=========="))
    assert f"(exit code {code}) ==========" in final and " fail" in final


def test_x_stops_at_the_first_failing_check(stopped: tuple[Path, int, str]) -> None:
    report, _, _ = stopped
    reasons = [rule["reason"] for rule in _report(report)["rules"] if rule["verdict"] == "error"]
    assert STOPPED_AT_FIRST_FAIL in reasons  # the checks left were not started


def test_lf_runs_the_rules_that_failed_or_erred_last_time(tmp_path: Path) -> None:
    assert _run(tmp_path, "--only", "ENV")[0] == 1
    before = _report(tmp_path)
    failed = sorted(r["id"] for r in before["rules"] if r["verdict"] in ("fail", "error"))
    assert 0 < len(failed) < len(before["rules"])
    code, output = _run(tmp_path, "--lf", "-q")
    assert code == 1
    assert sorted(_report(tmp_path)["run"]["only"]) == failed
    assert "short summary:" not in output  # -q: the final line and the reports only
    assert output.splitlines()[0].startswith("==========")


def test_q_says_no_progress_either(tmp_path: Path) -> None:
    """Attack round 6: -q still wrote a line per check on standard error."""
    arguments = ["run", "--stdio", ECHO, "--only", "ENV", "--report-dir", str(tmp_path)]
    loud, quiet = (CliRunner().invoke(main, [*arguments, *more]) for more in ((), ("-q",)))
    assert loud.exit_code == quiet.exit_code == 1
    assert any(line.startswith("[1/") for line in loud.stderr.splitlines())
    assert not any(line.startswith("[") for line in quiet.stderr.splitlines()), quiet.stderr


def test_colour_only_where_wanted(tmp_path: Path) -> None:
    code, coloured = _run(tmp_path / "a", "-x", color=True)
    assert code == 1 and "\x1b[" in coloured
    code, plain = _run(tmp_path / "b", "-x", "--no-color", color=True)
    assert code == 1 and "\x1b[" not in plain
