"""Runs of ``engram-conformance`` against the misbehaving fixture server, as a user makes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).with_name("fixtures") / "misbehaving_server.py"
EXECUTABLE = Path(sys.executable).with_name("engram-conformance")


def descriptor(
    tmp_path: Path,
    mode: str,
    *,
    call_timeout_s: float = 1,
    startup_timeout_s: float = 10,
    env: dict[str, str] | None = None,
) -> Path:
    path = tmp_path / f"{mode}.toml"
    command = json.dumps([sys.executable, str(FIXTURE), mode])
    text = (
        f'name = "misbehaving-{mode}"\n[server]\ntransport = "stdio"\ncommand = {command}\n'
        f"call_timeout_s = {call_timeout_s}\nstartup_timeout_s = {startup_timeout_s}\n"
    )
    if env:
        text += "[server.env]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in env.items())
    path.write_text(text, encoding="utf-8")
    return path


def arguments(target: Path, report_dir: Path, *options: str) -> list[str]:
    return [
        str(EXECUTABLE),
        "run",
        "--target",
        str(target),
        "--report-dir",
        str(report_dir),
        *options,
    ]


def run(
    tmp_path: Path, mode: str, *only: str, timeout: float = 120, **descriptor_options: object
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """The run of ``--only`` rules against the fixture in ``mode``, and its report folder; the
    harness's scratch folders go under ``tmp_path/scratch`` (TMPDIR)."""
    report_dir = tmp_path / "report"
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    target = descriptor(tmp_path, mode, **descriptor_options)  # type: ignore[arg-type]
    done = subprocess.run(
        arguments(target, report_dir, *(f"--only={o}" for o in only)),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "TMPDIR": str(scratch)},
    )
    return done, report_dir
