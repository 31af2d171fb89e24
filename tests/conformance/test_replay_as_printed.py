"""The reproduction a report prints runs as printed (issue 26, item 2): the transcript's path
from the folder the run was made in, and the target by the name the run was given. It said
``engram-conformance replay transcripts/<check>.jsonl``, which needs a target option, and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .mem.test_seed_written_server import SERVER

BIN = Path(sys.executable).parent


def _shell(command: str, folder: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        ["bash", "-c", command],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_printed_replay_runs_from_the_folder_of_the_run(tmp_path: Path) -> None:
    server = f"{sys.executable} {SERVER}"
    run = _shell(
        f"engram-conformance run --stdio '{server}' --contract mem --only TOPIC-005 "
        "--report-dir out",
        tmp_path,
    )
    assert run.returncode == 0, run.stdout + run.stderr  # a warning: the gate holds
    document = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    [reproduce] = [f["reproduce"] for rule in document["rules"] for f in rule["failures"]]
    assert reproduce.startswith("engram-conformance replay out/transcripts/")
    assert "--stdio" in reproduce and reproduce.endswith(" --contract mem")
    replayed = _shell(reproduce, tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "calls replayed, 0 answered differently" in replayed.stdout
