"""The nightly fuzz campaign of docs/ci.md (docs/examples/fuzz-nightly.yml): its command is one
``engram-conformance fuzz`` accepts, and it keeps what the command writes."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml
from engram_conformance.conformance.cli.fuzz import fuzz_command

WORKFLOW = Path(__file__).resolve().parents[2] / "docs" / "examples" / "fuzz-nightly.yml"


def steps() -> list[dict[str, Any]]:
    (job,) = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"].values()
    return job["steps"]


def test_the_nightly_campaign_runs_a_command_fuzz_accepts_and_keeps_its_reproductions() -> None:
    (install,) = [step for step in steps() if "pip install" in step.get("run", "")]
    assert '"./.engram-conformance[fuzz]"' in install["run"]
    (campaign,) = [step for step in steps() if "engram-conformance fuzz" in step.get("run", "")]
    # the shell's expansions, as the runner would make them
    line = campaign["run"].replace('"$(nproc)"', "4")
    line = line.replace('"$ENGRAM_FUZZ_DATABASE"', "redis://:secret@fuzz-db:6379/0")
    words = shlex.split(line)
    assert words[:2] == ["engram-conformance", "fuzz"]
    parsed = fuzz_command.make_context("fuzz", words[2:]).params
    assert parsed["minutes"] == 60 and parsed["workers"] == 4
    assert parsed["database"].startswith("redis://")
    assert "secrets.ENGRAM_FUZZ_DATABASE" in campaign["env"]["ENGRAM_FUZZ_DATABASE"]
    (upload,) = [step for step in steps() if step.get("uses", "").startswith("actions/upload")]
    assert upload["if"] == "always()"
    # fuzzing.run_campaign writes OUTPUT/CONTRACT/worker-N/reproductions/
    assert upload["with"]["path"] == f"{parsed['output']}/*/worker-*/reproductions"
