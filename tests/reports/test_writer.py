"""The report folder: four files from one validated document, and the GitHub step summary."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from engram_conformance.reports import (
    InvalidReport,
    ReportDocument,
    load,
    markdown,
    sarif,
    write_reports,
)

from .documents import small


def test_writes_four_reports_from_the_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    document = ReportDocument.from_dict(small())
    paths = write_reports(document, tmp_path / "out")
    assert {name: path.name for name, path in paths.items()} == {
        "json": "report.json",
        "junit": "junit.xml",
        "markdown": "summary.md",
        "html": "report.html",
    }
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        p.name for p in paths.values()
    )
    assert load(paths["json"]) == document
    assert paths["markdown"].read_text(encoding="utf-8") == markdown.render(document)


def test_json_data_is_accepted_and_validated(tmp_path: Path) -> None:
    assert load(write_reports(small(), tmp_path)["json"]) == ReportDocument.from_dict(small())
    broken = small()
    broken["counts"]["pass"] = 7
    with pytest.raises(InvalidReport, match="/counts/pass"):
        write_reports(broken, tmp_path / "broken")
    assert not (tmp_path / "broken").exists()


def test_an_inconsistent_document_built_in_code_is_refused(tmp_path: Path) -> None:
    document = ReportDocument.from_dict(small())
    inconsistent = replace(document, rules=document.rules[1:])
    with pytest.raises(InvalidReport, match="/counts/pass"):
        write_reports(inconsistent, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_markdown_is_appended_to_the_github_step_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    document = ReportDocument.from_dict(small())
    write_reports(document, tmp_path / "one")
    write_reports(document, tmp_path / "two")
    rendered = markdown.render(document)
    assert summary.read_text(encoding="utf-8") == "earlier step\n" + rendered + rendered


def test_sarif_is_written_when_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    document = ReportDocument.from_dict(small())
    paths = write_reports(document, tmp_path, formats=["sarif"])
    assert paths["sarif"] == tmp_path / "report.sarif"
    assert paths["sarif"].read_text(encoding="utf-8") == sarif.render(document)
    with pytest.raises(ValueError, match="no such optional report format: pdf"):
        write_reports(document, tmp_path / "other", formats=["sarif", "pdf"])
    assert not (tmp_path / "other").exists()


def test_a_link_planted_in_the_folder_is_replaced_not_followed(tmp_path: Path) -> None:
    """Attack round 6: with report.html linked to another file, that file was overwritten."""
    victim = tmp_path / "victim.txt"
    victim.write_text("kept", encoding="utf-8")
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "report.html").symlink_to(victim)
    (folder / "summary.md").symlink_to(tmp_path / "made-elsewhere.md")
    paths = write_reports(ReportDocument.from_dict(small()), folder)
    assert victim.read_text(encoding="utf-8") == "kept"
    assert not (tmp_path / "made-elsewhere.md").exists()
    assert not paths["html"].is_symlink() and "<!DOCTYPE html>" in paths["html"].read_text()
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in paths.values())
