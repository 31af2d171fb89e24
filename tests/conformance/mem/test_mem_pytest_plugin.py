"""The pytest plugin with the mem contract: its rules are items ``engram::mem::RULE-ID`` with
their verdicts, against the mem reference and against a mem server that breaks a rule (the
planted temporary store of ``tests/mutants/mem/catalog/restart.py``), whose failure a baseline
turns into an expected one."""

from __future__ import annotations

import json

import pytest

from ...mutants.described import planted

pytest_plugins = ["pytester"]

FORGETS_ON_STOP = planted("mem.restart", "temporary-store")


def test_the_mem_reference_rules_are_items_that_pass(pytester: pytest.Pytester) -> None:
    arguments = ["--engram-reference", "--engram-contract", "mem", "-v", "-p", "no:cacheprovider"]
    result = pytester.runpytest(*arguments, "--engram-only", "DISC-001,DISC-007,SAVE-008")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "engram::mem::DISC-001 PASSED*",
            "engram::mem::DISC-007 PASSED*",
            "engram::mem::SAVE-008 PASSED*",
            "Full mem conformance class (the twelve tools of seed 003): 3 pass, 0 fail,*",
        ]
    )


def test_a_broken_mem_rule_fails_and_xfails_once_in_the_baseline(
    pytester: pytest.Pytester,
) -> None:
    command = [*FORGETS_ON_STOP, "--contract", "mem", "--state-dir", "{state_dir}"]
    text = (
        'name = "forgets"\n[contract]\nname = "mem"\n[server]\ntransport = "stdio"\n'
        f"command = {json.dumps(command)}\n"
    )
    target = pytester.makefile(".toml", forgets=text)
    arguments = [
        "--engram-target",
        str(target),
        "--engram-only",
        "SAVE-008",
        "-p",
        "no:cacheprovider",
    ]
    failed = pytester.runpytest(*arguments)
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "*_ engram::mem::SAVE-008 _*",
            "SAVE-008 fail (must, *",
            "check: saves_survive_a_restart (seed *",
            "expected: memory #* found by a server started after the one that saved it stopped",
        ]
    )
    baseline = pytester.makefile(".json", known=json.dumps({"known_failures": {"SAVE-008": "x"}}))
    known = pytester.runpytest(*arguments, "--engram-baseline", str(baseline), "-rx")
    known.assert_outcomes(xfailed=1)
    known.stdout.fnmatch_lines(
        ["XFAIL engram::mem::SAVE-008 - known failure (in the baseline): fail"]
    )
