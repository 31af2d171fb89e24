"""The GitHub Actions example of docs/ci.md, exercised: its engram-conformance steps run here, as
the runner would run them, against the reference server in the target's place."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import venv
from pathlib import Path
from typing import Any

import pytest
import yaml
from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.targets.descriptor import load_descriptor

from .reports.test_sarif import check_code_scanning_log

REPO_ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = REPO_ROOT / "docs" / "examples" / "github-actions.yml"
GUIDE = REPO_ROOT / "docs" / "ci.md"


def steps() -> list[dict[str, Any]]:
    (job,) = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"].values()
    return job["steps"]


def uses(action: str) -> dict[str, Any]:
    (step,) = [step for step in steps() if step.get("uses", "").startswith(f"{action}@")]
    return step


def kit_commands(step: dict[str, Any]) -> list[list[str]]:
    """The engram-conformance command lines of a ``run:`` step."""
    lines = step.get("run", "").replace("\\\n", " ").splitlines()
    return [shlex.split(line) for line in lines if line.strip().startswith("engram-conformance ")]


def run_step(
    step: dict[str, Any],
    folder: Path,
    environment: dict[str, str],
    timeout_s: float,
    python_home: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """A ``run:`` step as the runner's default shell runs it, in ``folder``, with ``environment``
    added and the executables of ``python_home`` (a virtual environment; by default this
    environment) first on the PATH; it must succeed."""
    executables = python_home / "bin" if python_home else Path(sys.executable).parent
    finished = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=folder,
        env={
            **os.environ,
            "PATH": f"{executables}{os.pathsep}{os.environ.get('PATH', '')}",
            **environment,
        },
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return finished


def make_runner_python(home: Path) -> Path:
    """A virtual environment of its own at ``home``, as the runner's Python is, that also sees
    the packages of this one (the kit's dependencies, which a step told not to install them
    needs) through a path file. That file runs none of their path files, so this environment's
    editable kit is not imported there; pip sees its record and leaves it alone, as outside the
    environment it installs into. (Pointing pip at a folder with ``PIP_TARGET`` instead breaks
    the isolated build of the pip a fresh Python 3.11 environment has, 23.2: the pip that
    installs the build requirements inherits the variable, and refuses it beside its own
    ``--prefix``.)"""
    venv.create(home, with_pip=True)
    (site,) = (home / "lib").glob("python3.*/site-packages")
    ours = [Path(path) for path in sys.path if path.endswith("site-packages")]
    (site / "this-environment.pth").write_text(
        "".join(f"{path}\n" for path in ours), encoding="utf-8"
    )
    return home


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_the_workflow_runs_the_gate_then_publishes_whatever_the_outcome() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    assert job["permissions"]["security-events"] == "write"
    assert uses("actions/setup-python")["with"]["python-version"] == "3.11"
    (gate,) = [step for step in steps() if kit_commands(step)]
    (command,) = kit_commands(gate)
    report_dir = option(command, "--report-dir")
    assert command[:2] == ["engram-conformance", "run"]
    assert option(command, "--profile") == "quick" and option(command, "--format") == "sarif"
    later = steps()[steps().index(gate) + 1 :]
    artifact, sarif = uses("actions/upload-artifact"), uses("github/codeql-action/upload-sarif")
    assert artifact in later and sarif in later
    assert artifact["if"] == "always()" and artifact["with"]["path"] == report_dir
    assert sarif["if"].startswith("always()")
    assert sarif["with"]["sarif_file"] == f"{report_dir}/report.sarif"
    save = uses("actions/cache/save")
    assert save in later and save["if"].startswith("always()")
    assert save["with"]["path"] == uses("actions/cache/restore")["with"]["path"]
    assert save["with"]["path"] == f"{report_dir}/hypothesis"


def test_the_gate_step_passes_against_the_reference_and_leaves_every_report(
    tmp_path: Path,
) -> None:
    (gate,) = [step for step in steps() if kit_commands(step)]
    (command,) = kit_commands(gate)
    assert "${{" not in gate["run"], "the gate step must run as written, without expressions"
    shutil.copy(REPO_ROOT / "targets" / "reference.toml", tmp_path / option(command, "--target"))
    baseline = tmp_path / option(command, "--baseline")
    baseline.write_text(json.dumps({"known_failures": {}}), encoding="utf-8")
    step_summary = tmp_path / "step_summary.md"
    run_step(
        gate, tmp_path, {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(step_summary)}, 300
    )
    report_dir = tmp_path / option(command, "--report-dir")
    for name in ("report.json", "junit.xml", "summary.md", "report.html", "report.sarif"):
        assert (report_dir / name).is_file(), name
    summary = (report_dir / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("Full conformance class (all six tools):")
    assert step_summary.read_text(encoding="utf-8") == summary
    log = json.loads((report_dir / "report.sarif").read_text(encoding="utf-8"))
    check_code_scanning_log(log)
    results = log["runs"][0]["results"]
    assert [result["ruleId"] for result in results if result["level"] != "note"] == []
    for result in results:  # rules the harness cannot decide over stdio, which pass the gate
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uri"] == option(command, "--target")


def test_the_descriptors_of_the_guide_are_valid(tmp_path: Path) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 3
    for index, block in enumerate(blocks):
        path = tmp_path / f"descriptor{index}.toml"
        path.write_text(textwrap.dedent(block), encoding="utf-8")
        load_descriptor(path, every_settings())  # DescriptorError if not


def test_the_install_steps_install_the_kit_from_its_repository(tmp_path: Path) -> None:
    """Issue 26: the example installed the kit from the package index, where it is not: the
    job failed at its install step. Run here as the runner would: the checkout step is a clone
    of this repository into the step's ``path``; the install step's ``run`` runs as written
    (by the Python of an environment of its own, told not to install the dependencies this
    environment already has)."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    checkout = [
        step
        for step in steps()
        if step.get("uses", "").startswith("actions/checkout@") and "with" in step
    ]
    (kit,) = checkout
    assert kit["with"] == {
        "repository": "${{ env.KIT_REPOSITORY }}",
        "ref": "${{ env.KIT_REF }}",
        "path": ".engram-conformance",
    }
    assert workflow["env"] == {
        "KIT_REPOSITORY": "${{ vars.ENGRAM_CONFORMANCE_REPOSITORY }}",
        "KIT_REF": "${{ vars.ENGRAM_CONFORMANCE_REF }}",
    }
    (install,) = [step for step in steps() if step.get("name") == "Install the conformance kit"]
    assert steps().index(kit) + 1 == steps().index(install)
    assert "${{" not in install["run"]
    subprocess.run(
        ["git", "clone", "--quiet", str(REPO_ROOT), str(tmp_path / kit["with"]["path"])],
        check=True,
        timeout=120,
    )
    runner = make_runner_python(tmp_path / "runner")
    run_step(
        install, tmp_path, {"PIP_NO_DEPS": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}, 600, runner
    )
    (site,) = (runner / "lib").glob("python3.*/site-packages")
    installed = site / "engram_conformance"
    assert (installed / "spec" / "engram_memory" / "contract.json").is_file()
    assert (installed / "spec" / "mem" / "rules.json").is_file()
    version = subprocess.run(
        [str(runner / "bin" / "engram-conformance"), "--version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert version.returncode == 0 and "engram-conformance, version" in version.stdout


@pytest.mark.parametrize(
    "workflow",
    [
        WORKFLOW,
        *(REPO_ROOT / "docs" / "examples" / f"{n}.yml" for n in ("fuzz-nightly", "sharded-gate")),
    ],
    ids=lambda p: p.stem,
)
def test_a_job_without_the_kits_home_stops_before_the_install_and_names_what_to_set(
    tmp_path: Path, workflow: Path
) -> None:
    """The kit's home is the vendor's to say (the kit is on no package index, and a fork will
    do): no repository name is made up. Unset, the step before the checkout fails with an
    error annotation naming both variables; set, it lets the job go on."""
    jobs = yaml.safe_load(workflow.read_text(encoding="utf-8"))["jobs"].values()
    for job in jobs:  # every job that installs the kit says where it comes from first
        names = [step.get("name") for step in job["steps"]]
        checkout = names.index("Check out the conformance kit")
        assert names[checkout - 1] == "Say where the conformance kit comes from"
    steps = next(iter(jobs))["steps"]
    guard = next(step for step in steps if step.get("name", "").startswith("Say where"))
    unset = {"KIT_REPOSITORY": "", "KIT_REF": ""}
    stopped = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", guard["run"]],
        cwd=tmp_path,
        env={**os.environ, **unset},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stopped.returncode == 1
    assert stopped.stdout.startswith("::error::")
    assert "ENGRAM_CONFORMANCE_REPOSITORY" in stopped.stdout
    assert "ENGRAM_CONFORMANCE_REF" in stopped.stdout
    run_step(guard, tmp_path, {"KIT_REPOSITORY": "owner/kit", "KIT_REF": "v0.1.0"}, 60)
