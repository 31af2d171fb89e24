"""The pytest plugin: ``pytest --engram-target FILE`` turns each rule into a test item whose
outcome is the rule's verdict as the gate reads it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.spec.engram_memory import load

pytest_plugins = ["pytester"]

REFERENCE = reference_descriptor().command
PLANTED = Path(__file__).parent / "fixtures" / "planted_bug_server.py"
PLANTED_BUG = (sys.executable, str(PLANTED), "{state_dir}", "{host_public_key_file}")


def descriptor(pytester: pytest.Pytester, name: str, command: tuple[str, ...]) -> Path:
    """A stdio target descriptor for ``command`` in the pytester folder."""
    words = ", ".join(json.dumps(word) for word in command)
    text = f'name = "{name}"\n[server]\ntransport = "stdio"\ncommand = [{words}]\n'
    return pytester.makefile(".toml", **{name: text})


def report_rules(report_dir: Path) -> list[str]:
    document = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    return [rule["id"] for rule in document["rules"]]


def test_each_rule_is_an_item_with_its_verdict_and_deselected_rules_are_not_run(
    pytester: pytest.Pytester,
) -> None:
    target = descriptor(pytester, "reference", REFERENCE)
    result = pytester.runpytest(
        "--engram-target",
        str(target),
        "--engram-only",
        "ENV",
        "--deselect",
        "engram::engram-memory::ENV-002",
        "-v",
    )
    env = [rule for rule in load().rules.values() if rule.family == "ENV"]
    testable = sum(rule.testable for rule in env)
    # ENV-002 deselected, the untestable ENV-008 skipped, every other ENV rule passes
    result.assert_outcomes(passed=testable - 1, skipped=len(env) - testable, deselected=1)
    result.stdout.fnmatch_lines(
        [
            f"*collected {len(env)} items / 1 deselected / {len(env) - 1} selected",
            "engram::engram-memory::ENV-001 PASSED*",
            "engram::engram-memory::ENV-008 SKIPPED (not testable from outside a*",
            f"Full conformance class (all six tools): {testable - 1} pass, 0 fail,*",
        ]
    )
    report_dir = pytester.path / "engram-conformance-report"
    assert "ENV-002" not in report_rules(report_dir)
    assert len(report_rules(report_dir)) == len(env) - 1


def test_a_broken_rule_fails_with_its_evidence_and_xfails_once_in_the_baseline(
    pytester: pytest.Pytester,
) -> None:
    target = descriptor(pytester, "planted", PLANTED_BUG)
    arguments = [
        "--engram-target",
        str(target),
        "--engram-only",
        "IDEM-001",
        "-p",
        "no:cacheprovider",
    ]
    failed = pytester.runpytest(*arguments, "--engram-report-dir", "failed")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "*_ engram::engram-memory::IDEM-001 _*",
            "IDEM-001 fail (must, *",
            "check: replay_answers_the_first_result (seed *",
            "expected: engram_memory_capture replay: the first call's effect *",
            'observed: *"candidate_id": "cand_again1"*',
            f"transcript: {Path('failed', 'transcripts')}*",
        ]
    )
    assert failed.ret == pytest.ExitCode.TESTS_FAILED
    baseline = pytester.makefile(".json", known=json.dumps({"known_failures": {"IDEM-001": "x"}}))
    known = pytester.runpytest(*arguments, "--engram-baseline", str(baseline), "-rx")
    known.assert_outcomes(xfailed=1)
    known.stdout.fnmatch_lines(
        ["XFAIL engram::engram-memory::IDEM-001 - known failure (in the baseline): fail"]
    )
    assert known.ret == pytest.ExitCode.OK


def test_the_plugin_is_inert_without_a_target_and_collecting_runs_nothing(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_own():\n    pass\n")
    pytester.runpytest().assert_outcomes(passed=1)
    target = descriptor(pytester, "never-started", ("/nonexistent/server",))
    listed = pytester.runpytest("--engram-target", str(target), "--collect-only", "-q")
    listed.stdout.fnmatch_lines(
        [
            "test_*.py::test_own",
            "engram::engram-memory::ENV-001",
            "engram::engram-memory::SCHEMA-001",
        ]
    )
    assert not (pytester.path / "engram-conformance-report").exists()


def test_a_server_that_does_not_start_errors_every_item(pytester: pytest.Pytester) -> None:
    target = descriptor(pytester, "never-started", ("/nonexistent/server",))
    result = pytester.runpytest("--engram-target", str(target), "--engram-only", "ENV-001,ENV-002")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "_* ERROR at setup of engram::engram-memory::ENV-001 _*",
            "engram-conformance: the run could not be made: *",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")


def test_a_bad_descriptor_is_a_usage_error(pytester: pytest.Pytester) -> None:
    target = pytester.makefile(".toml", bad='name = "x"\n[server]\ntransport = "stdio"\n')
    result = pytester.runpytest("--engram-target", str(target))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: engram-conformance: *bad.toml at server.command: is required"]
    )
