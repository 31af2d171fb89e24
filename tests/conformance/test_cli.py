"""The engram-conformance commands: run, replay and rules, their reports and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.document import write_transcripts
from engram_conformance.conformance.engram_memory.settings import parse
from engram_conformance.reports.document import load as load_report
from engram_conformance.spec.engram_memory import load

from ..mutants.engram_memory.catalog.envelope import WrongAuditId
from .inprocess import run_against


def invoke(*arguments: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(arguments), catch_exceptions=False)


def test_run_against_the_reference_writes_every_report(tmp_path: Path) -> None:
    result = invoke("run", "--reference", "--only", "ENV,ERR", "--report-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Full conformance class (all six tools):")
    for name in ("report.json", "junit.xml", "summary.md", "report.html"):
        assert (tmp_path / name).is_file()
    document = load_report(tmp_path / "report.json")
    assert {rule.family for rule in document.rules} == {"ENV", "ERR"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'name = "x"\n[server]\ntransport = "stdio"\ncomand = ["x"]\n',
            "at server.comand: unknown key (did you mean 'command'?)",
        ),
        ('name = "x"\n[server]\ntransport = "stdio"\n', "at server.command: is required"),
        ('name = "x"\n[server]\ntransport = "pigeon"\ncommand = ["x"]\n', "at server.transport:"),
        ("name = [", "is not valid TOML"),
    ],
    ids=["misspelt-key", "missing-command", "bad-transport", "not-toml"],
)
def test_a_bad_descriptor_is_named_precisely_and_exits_2(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "target.toml"
    path.write_text(text, encoding="utf-8")
    result = invoke("run", "--target", str(path), "--report-dir", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert f"{path}" in result.output and message in result.output


def test_one_target_option_is_required() -> None:
    result = CliRunner().invoke(main, ["run"])
    assert result.exit_code == 2
    assert "exactly one of --target, --reference, --stdio, --url" in result.output


def test_rules_lists_every_rule_with_its_checks() -> None:
    result = invoke("rules")
    lines = result.output.splitlines()
    assert any(
        line.startswith("ENV-006") and "envelope_has_the_contract_shape" in line for line in lines
    )
    assert any(line.startswith("AGENT-001") and "(not testable)" in line for line in lines)


def test_replay_resends_a_transcript_and_maps_issued_ids(tmp_path: Path) -> None:
    result = run_against(tmp_path / "state", service_mutant=WrongAuditId, only=("ENV",))
    paths = write_transcripts(result, tmp_path / "report")
    transcript = tmp_path / "report" / paths["every_tool_answers_envelopes"]
    calls = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert any(call["tool"] == "engram_memory_request_admission" for call in calls)
    replayed = invoke("replay", str(transcript), "--reference")
    assert replayed.exit_code == 0, replayed.output
    assert f"{len(calls)} calls replayed, 0 answered differently" in replayed.output


def test_the_reference_descriptor_file_matches_the_built_in_one() -> None:
    from engram_conformance.conformance.contracts import every_settings
    from engram_conformance.conformance.targets.descriptor import load_descriptor
    from engram_conformance.conformance.targets.reference import reference_descriptor

    from ..conftest import REPO_ROOT

    shipped = load_descriptor(REPO_ROOT / "targets" / "reference.toml", every_settings())
    built_in = reference_descriptor()
    # the file names the six tools; the built-in one claims every tool of its contract
    assert shipped.claim == tuple(load().tools) and built_in.claim is None
    assert parse(shipped.tables) == parse(built_in.tables)
    assert shipped.contract == built_in.contract == "engram-memory"
    assert shipped.state_files == built_in.state_files
    assert shipped.command[1:] == built_in.command[3:]


def test_format_sarif_adds_report_sarif_and_an_unknown_format_exits_2(tmp_path: Path) -> None:
    result = invoke(
        "run",
        "--reference",
        "--only",
        "ENV-001",
        "--format",
        "sarif",
        "--report-dir",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    log = json.loads((tmp_path / "report.sarif").read_text(encoding="utf-8"))
    assert [rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]] == ["ENV-001"]
    wrong = CliRunner().invoke(main, ["run", "--reference", "--format", "sarif,pdf"])
    assert wrong.exit_code == 2
    assert "pdf (choose from sarif)" in wrong.output


#: In a fresh interpreter: ``run`` as far as its selection, which names no rule (exit 2), then
#: what it left.
WITHOUT_PLUGINS = """
import importlib.metadata, json, os, sys
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
os.environ.pop("HYPOTHESIS_NO_PLUGINS", None)
plugins = [e.value.split(":")[0] for e in importlib.metadata.entry_points(group="hypothesis")]
done = CliRunner().invoke(main, ["run", "--reference", "--only", "NOPE"])
assert done.exit_code == 2, done.output
print(json.dumps({
    "imported": "hypothesis" in sys.modules,
    "plugins": plugins,
    "loaded": [name for name in plugins if name in sys.modules],
    "switch": os.environ.get("HYPOTHESIS_NO_PLUGINS"),
}))
"""


def test_the_kit_s_process_runs_hypothesis_without_other_packages_plugins() -> None:
    """Hypothesis is imported with no plugin of another package (HypoFuzz's and trio's are
    installed beside the kit here), and the switch that says so is gone again, so that the
    servers the kit starts see the environment as it was."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_PLUGINS], capture_output=True, text=True, check=True
    )
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["imported"], seen
    assert "hypofuzz.entrypoint" in seen["plugins"], seen  # one is installed, so this can fail
    assert seen["loaded"] == [], seen
    assert seen["switch"] is None, seen
