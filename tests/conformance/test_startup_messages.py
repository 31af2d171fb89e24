"""A server that cannot be started or reached is told in one line that says what to do (issue 26,
item 4): exit code 2, no traceback, no report folder."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main


def _closed_port() -> int:
    """A local port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _descriptor(tmp_path: Path, name: str, command: str) -> str:
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "odd"\n[server]\ntransport = "stdio"\ncommand = {command}\n'
        "startup_timeout_s = 2\n",
        encoding="utf-8",
    )
    return str(path)


@pytest.mark.parametrize(
    ("case", "said"),
    [
        (
            "a command that echoes its input",
            "the server could not be started: the command sent its first request back instead "
            "of answering it (does it copy its input to its output?): is it an MCP server?",
        ),
        ("a URL nothing listens at", "the server could not be reached: nothing answers at "),
        ("an unknown placeholder", "the placeholders are {state_dir}, {work_dir}, "),
        ("a placeholder with a width", "unknown placeholder in '{port:>9999999999999}'"),
        ("a server that never answers", "within 2.0 s (server.startup_timeout_s)"),
    ],
)
def test_a_server_that_cannot_start_is_one_line_and_exit_2(
    tmp_path: Path, case: str, said: str
) -> None:
    python = sys.executable
    target = {
        "a command that echoes its input": ["--stdio", "cat"],
        "a URL nothing listens at": ["--url", f"http://127.0.0.1:{_closed_port()}/mcp"],
        "an unknown placeholder": [
            "--target",
            _descriptor(tmp_path, "placeholder", '["echo", "{nope}"]'),
        ],
        # attack round 6: a MemoryError, a traceback and exit 1
        "a placeholder with a width": [
            "--target",
            _descriptor(tmp_path, "width", '["echo", "{port:>9999999999999}"]'),
        ],
        "a server that never answers": [
            "--target",
            _descriptor(tmp_path, "mute", f'["{python}", "-c", "import time; time.sleep(60)"]'),
        ],
    }[case]
    report = tmp_path / "report"
    arguments = ["run", *target, "--contract", "mem", "--report-dir", str(report)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], result.output
    assert "Traceback" not in result.output and not report.exists()
