"""A finished run is never thrown away by its report: the tool names a server lists are evidence,
kept whatever they are (listed twice, empty, markup), and every renderer copes with them; a
document that breaks its own schema (a bug of the kit) is still written, as built, with the
renderings that can be made, one line on stderr and exit code 2."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.check_context import show
from engram_conformance.conformance.cli import run as cli_run
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.document import build_document
from engram_conformance.conformance.ledger import Failure, Ledger, Verdict
from engram_conformance.conformance.mem.facts import Envelope, ToolFailure
from engram_conformance.conformance.runner import RunOptions, RunResult
from engram_conformance.reports import InvalidReport, load, validate
from engram_conformance.reports.document import ReportDocument
from engram_conformance.reports.writer import write_reports, write_reports_as_built
from engram_conformance.spec.engram_memory import Spec

from .fixtures.odd_tool_names import ODD_NAMES

FIXTURE = Path(__file__).with_name("fixtures") / "odd_tool_names_server.py"
EXECUTABLE = Path(sys.executable).with_name("engram-conformance")


def odd_document(spec: Spec) -> dict[str, Any]:
    """The document of a run (made up, rule by rule) against a server listing ``ODD_NAMES``
    after the six tools."""
    listed = [*spec.tools, *ODD_NAMES]
    ledger = Ledger()
    ledger.passed("ENV-001", "every_tool_answers_envelopes")
    failure = Failure("claimed_tools_are_listed", "each tool listed once", json.dumps(listed))
    ledger.failed("HOST-020", failure)
    result = RunResult(
        contract="engram-memory",
        verdicts={"ENV-001": Verdict("pass"), "HOST-020": Verdict("warn")},
        ledger=ledger,
        checks_of_rule={
            "ENV-001": ["every_tool_answers_envelopes"],
            "HOST-020": ["claimed_tools_are_listed"],
        },
        tools_listed=listed,
        tools_claimed=list(spec.tools),
        server_info={"name": "odd-tool-names", "version": "0", "protocol_version": "2025-06-18"},
        seed=7,
        started_at_ms=1_700_000_000_000,
        duration_s=1.5,
    )
    return build_document(
        spec,
        result,
        RunOptions(only=("ENV-001", "HOST-020"), seed=7),
        SimpleNamespace(name="odd-tool-names", transport="stdio", negotiated=None),  # type: ignore[arg-type]
        descriptor=None,
        command="engram-conformance run --stdio odd",
        baseline=None,
        transcript_paths={},
    ).to_dict()


def test_odd_listed_names_are_kept_and_every_renderer_copes(spec: Spec, tmp_path: Path) -> None:
    data = odd_document(spec)
    paths = write_reports(data, tmp_path, formats=("sarif",))
    document = load(paths["json"])
    assert document.conformance.tools_listed == (*spec.tools, *ODD_NAMES)
    assert document.conformance.tools_claimed == tuple(spec.tools)
    assert document.to_dict() == data
    ET.fromstring(paths["junit"].read_bytes())  # well-formed XML, "]]></testcase>" and all
    json.loads(paths["sarif"].read_text(encoding="utf-8"))
    assert paths["markdown"].read_text(encoding="utf-8").startswith(data["conformance"]["summary"])
    page = paths["html"].read_text(encoding="utf-8")
    listed = page.split("<dt>Tools listed</dt><dd>")[1].split("</dd>")[0]
    # an empty or spaced name is quoted, so a reader can count the names; markup is escaped
    assert listed.count("engram_memory_search") == 2
    assert ", &quot;&quot;, &quot;   &quot;, " in listed
    assert "<b>" not in listed and "&lt;b&gt;" in listed
    assert "\u202e" not in page and "\\u202e" in listed


def test_the_descriptor_s_claim_stays_strict(spec: Spec) -> None:
    data = odd_document(spec)
    data["conformance"]["tools_claimed"] = ["engram_memory_get", "engram_memory_get"]
    with pytest.raises(InvalidReport) as raised:
        validate(data)
    assert raised.value.pointer == "/conformance/tools_claimed"


def test_an_invalid_report_propagates_through_a_context_manager() -> None:
    """Raised through ``contextlib.contextmanager`` (as under click), the error stays itself: a
    frozen dataclass refused the ``__traceback__`` contextlib assigns (FrozenInstanceError)."""

    @contextlib.contextmanager
    def block() -> Any:
        yield

    with pytest.raises(InvalidReport) as raised, block():
        validate({})
    assert str(raised.value) == "report: at '': '$schema' is a required property"
    assert raised.value.with_source("r.json").source == "r.json"


def _broken(spec: Spec) -> dict[str, Any]:
    """A document that breaks its schema (as a bug of the kit would make it)."""
    data = odd_document(spec)
    data["run"]["only"] = ["not a rule"]
    return data


def test_an_invalid_document_is_written_as_built_with_its_renderings(
    spec: Spec, tmp_path: Path
) -> None:
    data = _broken(spec)
    paths, problem = write_reports_as_built(data, tmp_path, formats=("sarif",))
    assert problem is not None
    assert problem.pointer == "/run/only/0"
    assert json.loads(paths["json"].read_text(encoding="utf-8")) == data
    assert set(paths) == {"json", "junit", "markdown", "html", "sarif"}
    ET.fromstring(paths["junit"].read_bytes())
    with pytest.raises(InvalidReport, match="/run/only/0"):
        load(paths["json"])  # it is what was built, not made valid


def test_a_document_no_view_can_be_made_of_still_gets_its_report_json(tmp_path: Path) -> None:
    data = {"kit": "no object", "rules": [{"id": 1}], "odd": {1, 2}}
    paths, problem = write_reports_as_built(data, tmp_path)
    assert problem is not None
    assert set(paths) == {"json"}
    assert json.loads(paths["json"].read_text(encoding="utf-8"))["odd"] == "{1, 2}"
    with pytest.raises(Exception):  # noqa: B017 - anything: the views need what it lacks
        ReportDocument.unchecked(data)


def test_a_valid_document_is_written_as_write_reports_writes_it(spec: Spec, tmp_path: Path) -> None:
    paths, problem = write_reports_as_built(odd_document(spec), tmp_path)
    assert problem is None
    assert load(paths["json"]).to_dict() == odd_document(spec)


def test_the_run_command_keeps_a_run_whose_report_is_invalid(
    spec: Spec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _broken(spec)
    built = ReportDocument.unchecked(data)  # as the harness would build it, schema broken
    monkeypatch.setattr(cli_run, "run_target", lambda *args, **kwargs: built)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    report_dir = tmp_path / "report"
    result = CliRunner().invoke(
        main, ["run", "--reference", "--report-dir", str(report_dir)], catch_exceptions=False
    )
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("engram-conformance: ")
    assert "breaks the report schema" in line and "'/run/only/0'" in line
    assert "written as built" in line
    assert "Traceback" not in result.output
    assert result.stdout.startswith(data["conformance"]["summary"])
    assert json.loads((report_dir / "report.json").read_text(encoding="utf-8")) == data
    for name in ("junit.xml", "summary.md", "report.html"):
        assert (report_dir / name).is_file()


def test_a_server_listing_a_tool_twice_and_one_named_empty_gets_its_report(
    tmp_path: Path,
) -> None:
    """End to end: before, the schema refused the list and the run ended in a traceback."""
    descriptor = tmp_path / "odd.toml"
    command = json.dumps([sys.executable, str(FIXTURE)])
    descriptor.write_text(
        f'name = "odd"\n[server]\ntransport = "stdio"\ncommand = {command}\ncall_timeout_s = 5\n',
        encoding="utf-8",
    )
    report_dir = tmp_path / "report"
    arguments = [EXECUTABLE, "run", "--target", descriptor, "--report-dir", report_dir]
    done = subprocess.run(
        [str(arg) for arg in [*arguments, "--only", "HOST-020", "--format", "sarif"]],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stdout + done.stderr
    assert done.returncode in (0, 1), done.stdout + done.stderr
    document = load(report_dir / "report.json")
    listed = document.conformance.tools_listed
    assert listed[-len(ODD_NAMES) :] == ODD_NAMES
    assert listed.count("engram_memory_search") == 2 and "" in listed
    for name in ("junit.xml", "summary.md", "report.html", "report.sarif"):
        assert (report_dir / name).is_file()


def test_evidence_shows_what_a_contract_read_as_json_never_a_repr() -> None:
    """Issue 26: mem evidence read ``ToolFailure(envelope=None, …)``."""
    failure = ToolFailure(message="boom", envelope=Envelope(project="p", source="s", path=""))
    shown = show({"answer": failure, "ids": (1, "obs_2")})
    assert json.loads(shown) == {
        "answer": {
            "kind": "ToolFailure",
            "message": "boom",
            "envelope": {"kind": "Envelope", "project": "p", "source": "s"},
        },
        "ids": [1, "obs_2"],
    }
    assert "ToolFailure(" not in shown
