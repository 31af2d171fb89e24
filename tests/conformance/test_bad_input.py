"""Bad input to any engram-conformance command (an option value, a descriptor field, a transcript
or a path) exits 2 with one line on stderr, ``engram-conformance: ...``, naming the problem: no
traceback, no run started, no report folder made.

Every case runs in process (fast); one case of each kind also runs through the installed
executable, a few at a time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main

EXECUTABLE = Path(sys.executable).with_name("engram-conformance")
TIMEOUT_S = 90
ROOT = os.geteuid() == 0  # root writes in any folder

_OK = 'name = "x"\n[server]\ntransport = "stdio"\ncommand = ["python3"]\n'
DESCRIPTORS = {
    "call-timeout-zero": _OK + "call_timeout_s = 0\n",
    "call-timeout-negative": _OK + "call_timeout_s = -1\n",
    "call-timeout-huge": _OK + "call_timeout_s = 1e9\n",
    "call-timeout-nan": _OK + "call_timeout_s = nan\n",
    "startup-timeout-inf": _OK + "startup_timeout_s = inf\n",
    "command-empty-list": 'name = "x"\n[server]\ntransport = "stdio"\ncommand = []\n',
    "command-empty-string": 'name = "x"\n[server]\ntransport = "stdio"\ncommand = [""]\n',
    "command-blank-program": 'name = "x"\n[server]\ntransport = "stdio"\ncommand = ["  ", "a"]\n',
    "url-not-http": 'name = "x"\n[server]\ntransport = "http"\nurl = "ftp://h/mcp"\n',
    "url-no-host": 'name = "x"\n[server]\ntransport = "http"\nurl = "http://:8080/mcp"\n',
    "name-blank": _OK.replace('"x"', '"   "'),
    "answers-not-a-pointer": _OK + '[answers.mem_save]\nid = "id"\n',
    "answers-bad-pattern": _OK + '[answers.mem_save]\nid = "re:#(\\\\d+"\n',
    "answers-pattern-no-group": _OK + '[answers.mem_save]\nid = "re:#\\\\d+"\n',
    "answers-not-a-table": _OK + '[answers]\nmem_save = "/id"\n',
    "claims-no-tool-of-its-contract": _OK
    + '[policy]\ntools = ["nope"]\n[contract]\nname = "mem"\n',
    "contract-unknown": _OK + '[contract]\nname = "nope"\n',
}
TRANSCRIPTS = {
    "not-json": "this is not JSON\n",
    "empty": "",
    "no-object": "[1, 2]\n",
    "no-method": json.dumps({"index": 0, "answer": {}}) + "\n",
}


def run(*arguments: str) -> list[str]:
    """A run command against the reference, limited to one rule, into its own report folder
    (``{case}`` is the case's id): had the bad value been taken, the run would be short."""
    return ["run", *arguments, "--report-dir", "{tmp}/reports/{case}"]


def ref(*arguments: str) -> list[str]:
    return run("--reference", "--only", "ENV-001", *arguments)


CASES = [
    # the target options
    pytest.param(run("--stdio", ""), "--stdio: '' names no command", id="stdio-empty"),
    pytest.param(run("--stdio", "   "), "--stdio: '   ' names no command", id="stdio-blank"),
    pytest.param(run("--stdio", "'server"), "not a command line", id="stdio-unbalanced-quote"),
    pytest.param(run("--url", ""), "--url: '' is not an http(s) URL", id="url-empty"),
    pytest.param(run("--url", "ftp://h/mcp"), "is not an http(s) URL", id="url-not-http"),
    pytest.param(run("--url", "http://"), "names no host", id="url-no-host"),
    pytest.param(run("--url", "http://h:99999/mcp"), "Port out of range", id="url-bad-port"),
    pytest.param(run("--url", "local host:80"), "holds whitespace", id="url-words"),
    pytest.param(run("--reference", "--url", "http://h/"), "exactly one", id="two-targets"),
    pytest.param(run("--target", "{tmp}/absent.toml"), "cannot be read", id="target-missing"),
    pytest.param(run("--target", "{tmp}"), "is a directory", id="target-a-folder"),
    # the run's options
    pytest.param(ref("--budget", "0"), "'--budget'", id="budget-zero"),
    pytest.param(ref("--budget", "-5"), "'--budget'", id="budget-negative"),
    pytest.param(ref("--budget", "nan"), "'--budget'", id="budget-nan"),
    pytest.param(ref("--budget", "inf"), "'--budget'", id="budget-inf"),
    pytest.param(ref("--seed", "-1"), "'--seed'", id="seed-negative"),
    pytest.param(ref("--seed", str(2**64)), "'--seed'", id="seed-huge"),
    pytest.param(run("--reference", "--only", "ENV-999"), "'ENV-999'", id="only-unknown-rule"),
    pytest.param(run("--reference", "--only", "NOPE"), "'NOPE' is no rule", id="only-unknown"),
    pytest.param(run("--reference", "--only", "env"), "did you mean ENV", id="only-lowercase"),
    pytest.param(run("--reference", "--only", ","), "names no rule", id="only-nothing"),
    pytest.param(ref("--profile", "slow"), "'--profile'", id="profile-unknown"),
    pytest.param(ref("--format", "pdf"), "pdf (choose from sarif)", id="format-unknown"),
    pytest.param(ref("--frobnicate"), "No such option", id="unknown-option"),
    pytest.param(ref("--baseline", "{tmp}/absent.json"), "cannot be read", id="baseline-missing"),
    pytest.param(ref("--baseline", "{tmp}/not.json"), "is not JSON", id="baseline-not-json"),
    pytest.param(ref("--baseline", "{tmp}/list.json"), "known_failures", id="baseline-not-one"),
    pytest.param(
        ["run", "--reference", "--only", "ENV-001", "--report-dir", "{tmp}/file"],
        "is a file",
        id="report-dir-a-file",
    ),
    pytest.param(
        ["run", "--reference", "--only", "ENV-001", "--report-dir", "{tmp}/file/report"],
        "'{tmp}/file' is a file",
        id="report-dir-inside-a-file",
    ),
    pytest.param(
        ["run", "--reference", "--only", "ENV-001", "--report-dir", "{tmp}/locked/report"],
        "is not writable",
        id="report-dir-not-writable",
        marks=pytest.mark.skipif(ROOT, reason="root writes in any folder"),
    ),
    *(  # issue 26: a traceback and exit 1 after the whole run; root may not write here either
        pytest.param(
            ["run", "--reference", "--only", "ENV-001", "--report-dir", folder],
            "is not writable",
            id=f"report-dir-{folder.strip('/').replace('/', '-')}",
        )
        for folder in ("/proc/engram-report", "/sys/engram-report")
    ),
    pytest.param(ref("--example-db", "{tmp}/file/db"), "'--example-db'", id="example-db-in-a-file"),
    # descriptor fields
    *(
        pytest.param(
            run("--target", f"{{tmp}}/{name}.toml"), "{tmp}/" + name, id=f"descriptor-{name}"
        )
        for name in DESCRIPTORS
    ),
    # replay
    *(
        pytest.param(
            ["replay", f"{{tmp}}/{name}.jsonl", "--reference"],
            "is not a transcript",
            id=f"transcript-{name}",
        )
        for name in TRANSCRIPTS
    ),
    pytest.param(["replay", "{tmp}/absent.jsonl", "--reference"], "does not exist", id="no-file"),
    pytest.param(
        ["replay", "{tmp}/good.jsonl", "--stdio", "  "], "--stdio", id="replay-stdio-blank"
    ),
    # replay prepares its target as run does: the same descriptor problems, the same line
    *(
        pytest.param(
            ["replay", "{tmp}/good.jsonl", "--target", f"{{tmp}}/{name}.toml"],
            "{tmp}/" + name,
            id=f"replay-descriptor-{name}",
        )
        for name in ("claims-no-tool-of-its-contract", "command-empty-list")
    ),
    pytest.param(
        ["replay", "{tmp}/good.jsonl", "--reference", "--contract", "nope"],
        "'nope' is no contract this kit knows",
        id="replay-contract-unknown",
    ),
    pytest.param(
        run("--stdio", "x", "--contract", "nope"), "is no contract", id="contract-unknown"
    ),
    # the other commands
    pytest.param(
        ["spec", "docs", "--output", "{tmp}/file/contract.md"], "'--output'", id="docs-in-a-file"
    ),
    pytest.param(
        ["spec", "lint", "--seed-text", "{tmp}/latin1.txt"], "not UTF-8", id="seed-not-utf8"
    ),
    pytest.param(["rules", "--frobnicate"], "No such option", id="rules-unknown-option"),
    pytest.param(["frobnicate"], "No such command", id="unknown-command"),
]


def _prepare(tmp: Path) -> None:
    (tmp / "reports").mkdir()
    (tmp / "file").write_text("a file, not a folder\n", encoding="utf-8")
    (tmp / "not.json").write_text("{", encoding="utf-8")
    (tmp / "list.json").write_text("[]", encoding="utf-8")
    (tmp / "latin1.txt").write_bytes("señal".encode("latin-1"))
    entry = {"index": 0, "method": "tools/list", "answer": {}, "claims": None, "meta": None}
    (tmp / "good.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    for name, text in DESCRIPTORS.items():
        (tmp / f"{name}.toml").write_text(text, encoding="utf-8")
    for name, text in TRANSCRIPTS.items():
        (tmp / f"{name}.jsonl").write_text(text, encoding="utf-8")
    locked = tmp / "locked"
    locked.mkdir()
    locked.chmod(0o555)


def _argv(template: list[str], tmp: Path, case: str) -> list[str]:
    return [part.format(tmp=tmp, case=case) for part in template]


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The files the cases name; every case's report folder would go in ``reports/``."""
    folder = tmp_path_factory.mktemp("bad-input")
    _prepare(folder)
    yield folder
    (folder / "locked").chmod(0o755)


def _judge(tmp: Path, case: str, fragment: str, code: Any, stdout: str, stderr: str) -> None:
    shown = f"exit {code}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    assert "Traceback" not in stderr + stdout, shown
    assert code == 2, shown
    lines = stderr.splitlines()
    assert len(lines) == 1, shown
    assert lines[0].startswith("engram-conformance: "), shown
    assert fragment.format(tmp=tmp) in lines[0], shown
    assert not (tmp / "reports" / case).exists()  # nothing was run, no report folder made


@pytest.mark.parametrize(("arguments", "fragment"), CASES)
def test_bad_input_exits_2_with_one_line_naming_it(
    tmp: Path, request: pytest.FixtureRequest, arguments: list[str], fragment: str
) -> None:
    """In process, every case (the command's code, as the executable runs it)."""
    case = request.node.callspec.id
    result = CliRunner().invoke(main, _argv(arguments, tmp, case), catch_exceptions=False)
    _judge(tmp, case, fragment, result.exit_code, result.stdout, result.stderr)


#: The cases run again through the installed executable, one of each kind.
THROUGH_THE_EXECUTABLE = (
    "stdio-blank",
    "url-not-http",
    "budget-nan",
    "seed-negative",
    "only-unknown",
    "report-dir-inside-a-file",
    "descriptor-call-timeout-nan",
    "transcript-no-object",
    "docs-in-a-file",
)


@pytest.fixture(scope="module")
def executed(tmp: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """The runs of the installed executable, a few at a time (each is a process of its own)."""
    cases = {case.id: case.values[0] for case in CASES if case.id in THROUGH_THE_EXECUTABLE}

    def one(case: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(EXECUTABLE), *_argv(cases[case], tmp, case)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
            cwd=tmp,
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(cases, pool.map(one, cases), strict=True))


@pytest.mark.parametrize(
    ("arguments", "fragment"), [c for c in CASES if c.id in THROUGH_THE_EXECUTABLE]
)
def test_the_executable_says_it_in_one_line_too(
    tmp: Path,
    executed: dict[str, subprocess.CompletedProcess[str]],
    request: pytest.FixtureRequest,
    arguments: list[str],
    fragment: str,
) -> None:
    case = request.node.callspec.id
    finished = executed[case]
    _judge(tmp, case, fragment, finished.returncode, finished.stdout, finished.stderr)


def test_every_case_run_through_the_executable_is_a_case() -> None:
    assert set(THROUGH_THE_EXECUTABLE) <= {case.id for case in CASES}
