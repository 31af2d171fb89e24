"""The kit speaks both MCP eras (docs/eras.md): ``auto`` takes the newest a server speaks, a
pinned era is spoken or the run cannot be made, the byte-exact channel frames its requests in
the run's era, and the reports name the era. Against a server that serves 2026-07-28 only
(``fixtures/era_server.py modern-only``, the reference refusing ``initialize`` with -32022) the
shipped descriptors read as against the reference itself: nothing fails, warns or errs, over
the rules whose checks open the connections that era changes (``OPENINGS``)."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from engram_conformance.conformance.request import RunRequest, Unusable, descriptor_of
from engram_conformance.reports.document import load as load_report

from .inprocess import command

TARGETS = Path(__file__).parents[2] / "targets"
ERA_SERVER = Path(__file__).with_name("fixtures") / "era_server.py"
#: the rules whose raw-channel requests each era frames on its own (HOST-025 writes whole texts)
RAW_RULES = "SCHEMA-032,HOST-025"
#: the HOST rules whose checks send tools/list, with or without a host context
LISTING = "HOST-008,HOST-009,HOST-010,HOST-011,HOST-013,HOST-020,HOST-021,HOST-022,HOST-024"
#: Per contract, the rules run against a server of the new era only. Such a server differs from
#: the reference in one thing: it refuses ``initialize``. ``auto`` already speaks 2026-07-28 to
#: the reference (every rule of its whole runs elsewhere, and of both eras in
#: ``test_both_eras_of_the_reference_read_alike``), so what could read otherwise here is every
#: opening of a connection, each of which must ask ``server/discover`` and never send
#: ``initialize``: the run's own connection and its listing (ENV, every tool over it; HOST-020;
#: DISC, with the instructions the opening answer carries), the raw channels (HOST-025;
#: SCHEMA-037, a body too large for one read over HTTP), an abandoned request (IDEM-012:
#: cancelled, or over HTTP its POST closed), an unknown tool's protocol error (ERR), and the
#: extra server processes of a restart and of several writers (SAVE-008, SAVE-013).
OPENINGS = {
    "engram-memory": "ENV,HOST-020,HOST-025,SCHEMA-037,IDEM-012",
    "mem": "DISC,ERR,SAVE-008,SAVE-013",
}


def run(tmp_path: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``engram-conformance run ARGUMENTS`` with its reports in ``tmp_path/report`` (in this
    process: these tests are about the runs' results, not their process)."""
    return command("run", *arguments, "--report-dir", str(tmp_path / "report"))


def changed(tmp_path: Path, shipped: str, mode: str = "modern-only") -> Path:
    """The shipped descriptor ``shipped`` with its reference server behind the era fixture in
    ``mode`` (same arguments, same policy, same state files)."""
    text = (TARGETS / shipped).read_text(encoding="utf-8")
    started = '"engram-reference", "serve",'
    assert started in text, f"{shipped} no longer starts the reference as this test expects"
    wrapped = text.replace(started, f'"{sys.executable}", "{ERA_SERVER}", "{mode}",')
    path = tmp_path / shipped
    path.write_text(wrapped, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("shipped", "contract"),
    [
        ("reference.toml", "engram-memory"),
        ("reference-http.toml", "engram-memory"),
        ("mem-reference.toml", "mem"),
        ("mem-reference-http.toml", "mem"),
    ],
)
def test_a_server_of_the_new_era_only_reads_as_the_reference(
    tmp_path: Path, shipped: str, contract: str
) -> None:
    target = changed(tmp_path, shipped)
    done = run(tmp_path, "--target", str(target), "--only", OPENINGS[contract])
    shown = f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode == 0, shown
    document = load_report(tmp_path / "report" / "report.json")
    broken = [r.id for r in document.rules if r.verdict in ("fail", "warn", "error")]
    assert broken == [], shown
    assert document.target.protocol is not None
    assert (document.target.protocol.era, document.target.protocol.era_requested) == (
        "2026-07-28",
        "auto",
    )
    assert "MCP era 2026-07-28 (auto: the newest the server speaks)" in done.stdout


def test_a_pinned_era_the_server_does_not_speak_cannot_be_run(tmp_path: Path) -> None:
    target = changed(tmp_path, "reference.toml")
    done = run(tmp_path, "--target", str(target), "--era", "2025-11-25", "--only", "ENV-001")
    assert done.returncode == 2, done.stderr
    first = done.stderr.splitlines()[0]
    assert "does not speak the MCP era asked for (server.era, --era)" in first
    assert "it speaks 2026-07-28" in first


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("shipped", ["reference.toml", "reference-http.toml"])
def test_the_byte_exact_channel_speaks_each_era(tmp_path: Path, shipped: str, era: str) -> None:
    """SCHEMA-032 and HOST-025 go over the raw channel: framed in the era, they pass."""
    arguments = ("--target", str(TARGETS / shipped), "--era", era, "--only", RAW_RULES)
    done = run(tmp_path, *arguments)
    assert done.returncode == 0, done.stdout + done.stderr
    document = load_report(tmp_path / "report" / "report.json")
    assert {r.id: r.verdict for r in document.rules} == {
        "SCHEMA-032": "pass",
        "HOST-025": "pass",
    }
    protocol = document.target.protocol
    assert protocol is not None
    assert (protocol.era_requested, protocol.era, protocol.protocol_version) == (era, era, era)
    suites = ET.parse(tmp_path / "report" / "junit.xml").getroot().iter("testsuite")
    properties = {p.get("name"): p.get("value") for s in suites for p in s.iter("property")}
    assert properties["mcp_era"] == properties["mcp_protocol_version"] == era


def test_an_era_no_run_knows_is_one_line_and_exit_2(tmp_path: Path) -> None:
    text = (TARGETS / "reference.toml").read_text(encoding="utf-8")
    target = tmp_path / "odd-era.toml"
    target.write_text(text.replace("[server]\n", '[server]\nera = "2027-01-01"\n'), "utf-8")
    done = run(tmp_path, "--target", str(target))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "at server.era: '2027-01-01' is not one of" in done.stderr


def test_both_eras_of_the_reference_read_alike(tmp_path: Path) -> None:
    done = run(tmp_path, "--reference", "--era", "both")
    assert done.returncode == 0, done.stdout + done.stderr
    document = load_report(tmp_path / "report" / "report.json")
    assert document.target.protocol is not None
    assert document.target.protocol.era == "both"
    assert all(
        rule.eras and set(rule.eras) == {"2025-11-25", "2026-07-28"} for rule in document.rules
    )
    assert [rule.id for rule in document.rules if rule.era_finding] == []
    assert [r.id for r in document.rules if r.verdict in ("fail", "warn", "error")] == []
    for era in ("2025-11-25", "2026-07-28"):  # each era's own report beside the one of both
        own = load_report(tmp_path / "report" / era / "report.json")
        assert own.target.protocol is not None and own.target.protocol.era == era


def test_a_rule_broken_on_the_new_path_only_is_an_era_finding(tmp_path: Path) -> None:
    """The fixture drops the host context of an enveloped tools/list: the listing rules
    (profile level: warn) break in 2026-07-28 and hold in 2025-11-25, and are shown first.
    Run over the HOST rules whose checks send tools/list (``LISTING``): among them, the two
    that read the listing's host context alone are findings."""
    target = changed(tmp_path, "reference.toml", "unbound-listing-when-enveloped")
    done = run(tmp_path, "--target", str(target), "--era", "both", "--only", LISTING)
    document = load_report(tmp_path / "report" / "report.json")
    findings = {rule.id: dict(rule.eras or {}) for rule in document.rules if rule.era_finding}
    broken_in_new_era = {"2025-11-25": "pass", "2026-07-28": "warn"}
    assert findings == {"HOST-009": broken_in_new_era, "HOST-010": broken_in_new_era}, done.stdout
    assert {r.id: r.verdict for r in document.rules if r.id in findings} == dict.fromkeys(
        findings, "warn"
    )
    said = done.stdout.splitlines()
    first = said.index("era findings (the server keeps these rules in one era, not the other):")
    assert first < said.index("short summary:")
    assert "## Era findings (2)" in (tmp_path / "report" / "summary.md").read_text("utf-8")


def test_a_must_rule_broken_in_one_era_only_fails_in_that_era_and_is_shown_first(
    tmp_path: Path,
) -> None:
    """The fixture's listing gives mem_save's topic_key the type integer in 2026-07-28 only:
    DISC-001 (must) reads fail for that era and pass for the other, an era finding that every
    report (the HTML page too) shows before the failures."""
    target = changed(tmp_path, "mem-reference.toml", "integer-topic-key-when-enveloped")
    done = run(tmp_path, "--target", str(target), "--era", "both", "--only", "DISC-001")
    assert done.returncode == 1, done.stdout + done.stderr
    report = tmp_path / "report"
    [rule] = [rule for rule in load_report(report / "report.json").rules if rule.id == "DISC-001"]
    assert (rule.verdict, dict(rule.eras or {})) == (
        "fail",
        {"2025-11-25": "pass", "2026-07-28": "fail"},
    )
    assert rule.failures[0].expected == "mem_save's property topic_key of type string"
    assert rule.failures[0].transcript is not None
    assert rule.failures[0].transcript.startswith("2026-07-28/transcripts/")
    for era, verdict in (("2025-11-25", "pass"), ("2026-07-28", "fail")):
        own = {r.id: r.verdict for r in load_report(report / era / "report.json").rules}
        assert own["DISC-001"] == verdict
    page = (report / "report.html").read_text(encoding="utf-8")
    assert '<section id="era-findings"><h2>Era findings (1)</h2>' in page
    assert page.index('id="era-findings"') < page.index('<section id="fails">')
    assert "2025-11-25 pass, 2026-07-28 fail" in page
    summary = (report / "summary.md").read_text(encoding="utf-8")
    assert summary.index("## Era findings (1)") < summary.index("## Failures")


def test_both_eras_of_a_server_of_one_era_say_which_it_would_not_speak(tmp_path: Path) -> None:
    target = changed(tmp_path, "reference.toml")
    done = run(tmp_path, "--target", str(target), "--era", "both", "--only", "ENV-001")
    assert done.returncode == 0, done.stdout + done.stderr
    protocol = load_report(tmp_path / "report" / "report.json").target.protocol
    assert protocol is not None
    assert (protocol.era_requested, protocol.era) == ("both", "2026-07-28")
    assert list(protocol.not_spoken or {}) == ["2025-11-25"]
    assert "2025-11-25 not spoken: the server does not speak the MCP era" in done.stdout


def test_a_library_request_for_an_era_no_run_knows_is_unusable() -> None:
    """The library API and the pytest plugin (``--engram-era``) pass the era unchecked."""
    with pytest.raises(Unusable, match="'2027' is no MCP era to run in"):
        descriptor_of(RunRequest(target={"reference": "engram-memory"}, era="2027"))


def test_the_era_names_written_out_are_the_sdks() -> None:
    """eras.py writes the protocol's strings out (so that parsing options imports no SDK)."""
    import mcp_types
    from engram_conformance.conformance.targets import eras
    from mcp_types.version import LATEST_MODERN_VERSION

    assert eras.MODERN == LATEST_MODERN_VERSION
    assert eras.ENVELOPE_KEYS == (
        mcp_types.PROTOCOL_VERSION_META_KEY,
        mcp_types.CLIENT_INFO_META_KEY,
        mcp_types.CLIENT_CAPABILITIES_META_KEY,
    )


def test_the_report_of_both_finds_an_errors_transcript_in_its_eras_folder() -> None:
    from dataclasses import replace

    from engram_conformance.conformance.both_eras import merged
    from engram_conformance.reports import ErrorRecord, ReportDocument, Verdict

    from ..reports.documents import small

    base = ReportDocument.from_dict(small())
    stopped = ErrorRecord("one_check", (), "transcripts/one_check.jsonl", None)
    erred = replace(base.rules[0], verdict=Verdict.ERROR, reason="no answer", error=stopped)
    passed = replace(erred, verdict=Verdict.PASS, reason=None, failures=(), error=None)
    both = merged(
        {"2025-11-25": replace(base, rules=(passed,)), "2026-07-28": replace(base, rules=(erred,))},
        {},
    )
    [rule] = both.rules
    assert rule.error is not None
    assert rule.error.transcript == "2026-07-28/transcripts/one_check.jsonl"
