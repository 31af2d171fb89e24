"""The sharded GitHub Actions example of docs/ci.md (docs/examples/sharded-gate.yml), exercised:
each job of its matrix runs its shard step as the runner would, the merge job's step merges
what they uploaded, against the mem reference server in the target's place (the quickest of
the bundled references; tests/conformance/test_sharded_runs.py compares both contracts'
merged runs with single runs)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from .reports.test_sarif import check_code_scanning_log

REPO_ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = REPO_ROOT / "docs" / "examples" / "sharded-gate.yml"
GUIDE = REPO_ROOT / "docs" / "ci.md"
#: what the runner gives the steps' expressions here: a run id beyond the seeds' range
RUN_ID = 12_345_678_901


def jobs() -> dict[str, Any]:
    jobs: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    return jobs


def step(job: str, name: str) -> dict[str, Any]:
    (found,) = [s for s in jobs()[job]["steps"] if s.get("name", "").startswith(name)]
    return found


def shell(command: str, folder: Path, environment: dict[str, str]) -> str:
    """A ``run:`` step's text as the runner's bash runs it, in ``folder``, this environment's
    executables first; it must succeed. Its standard output."""
    finished = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command],
        cwd=folder,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            **environment,
        },
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return finished.stdout


def test_the_guide_shows_the_sharded_workflow_and_its_shard_command() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    assert "examples/sharded-gate.yml" in guide
    shown = [
        " ".join(block.replace("\\\n", " ").split())
        for block in re.findall(r"```bash\n(.*?)```", guide, re.DOTALL)
    ]
    assert " ".join(step("shard", "Run this job's shard")["run"].split()) in shown


def test_the_merge_job_follows_every_shard_and_publishes_the_merged_report_alone() -> None:
    shard, merge = jobs()["shard"], jobs()["merge"]
    assert shard["strategy"]["fail-fast"] is False
    assert merge["needs"] == "shard" and "cancelled()" in merge["if"]
    uploaded = step("shard", "Upload this shard's report")
    assert uploaded["if"] == "always()"
    assert uploaded["with"]["name"] == "engram-shard-${{ matrix.shard }}"
    download = step("merge", "Download the shards' reports")
    assert download["with"] == {"pattern": "engram-shard-*", "path": "shards"}
    sarif_steps = [
        s
        for job in jobs().values()
        for s in job["steps"]
        if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    ]
    assert sarif_steps == [step("merge", "Upload the failures as code-scanning alerts")]
    assert merge["permissions"]["security-events"] == "write"
    assert "security-events" not in shard.get("permissions", {})


def test_the_shard_jobs_and_the_merge_job_run_against_the_reference(tmp_path: Path) -> None:
    matrix = jobs()["shard"]["strategy"]["matrix"]["shard"]
    run_shard = step("shard", "Run this job's shard")
    merge_step = step("merge", "Merge the shards")
    assert "${{" not in run_shard["run"] + merge_step["run"], "steps take expressions by env"
    assert run_shard["env"]["SHARD"] == "${{ matrix.shard }}"
    assert run_shard["env"]["SHARDS"] == "${{ strategy.job-total }}"
    shutil.copy(REPO_ROOT / "targets" / "mem-reference.toml", tmp_path / "engram-target.toml")
    (tmp_path / "engram-baseline.json").write_text('{"known_failures": {}}', encoding="utf-8")
    uploaded = step("shard", "Upload this shard's report")["with"]["path"]
    for index in matrix:  # each job: its step, then its upload (as the download names it)
        environment = {"SHARD": str(index), "SHARDS": str(len(matrix)), "RUN_ID": str(RUN_ID)}
        shell(run_shard["run"], tmp_path, environment)
        shutil.move(tmp_path / uploaded, tmp_path / "shards" / f"engram-shard-{index}")
    said = shell(merge_step["run"], tmp_path, {})
    assert f"merged from the reports of {len(matrix)} shards" in said
    report_dir = tmp_path / "engram-report"
    data = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    assert data["exit_code"] == 0 and data["run"]["merged_shards"] == len(matrix)
    assert data["run"]["seed"] == RUN_ID % 2**32
    assert data["counts"]["pass"] > 100 and data["counts"]["error"] == 0
    assert len({rule["id"] for rule in data["rules"]}) == len(data["rules"])
    log = json.loads((report_dir / "report.sarif").read_text(encoding="utf-8"))
    check_code_scanning_log(log)
    assert len(log["runs"][0]["tool"]["driver"]["rules"]) == len(data["rules"])
