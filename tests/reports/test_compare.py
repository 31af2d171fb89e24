"""Two runs compared rule by rule (``diff``), and implementations side by side (``matrix``)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from engram_conformance.reports import ReportDocument, tally
from engram_conformance.reports.compare import NotComparable, as_text, compare
from engram_conformance.reports.matrix import as_html, as_markdown

from .documents import small


def _run(**verdicts: str) -> dict:
    """The small document with some rules' verdicts changed (``ENV_001="fail"``)."""
    data = copy.deepcopy(small())
    for rule in data["rules"]:
        given = verdicts.get(rule["id"].replace("-", "_"))
        if given is not None:
            rule.update(verdict=given, baseline=None)
            if given in ("pass", "not_applicable"):
                rule.update(failures=[], reason=None if given == "pass" else "n/a here")
    counts = tally(rule["verdict"] for rule in data["rules"])
    data["counts"] = {str(verdict): count for verdict, count in counts.items()}
    # the exit code stays 1: IDEM-004 is a stale baseline entry in every variant
    return data


def _document(data: dict) -> ReportDocument:
    return ReportDocument.from_dict(data)


def test_a_rule_that_held_and_now_fails_is_a_regression() -> None:
    old, new = _document(_run()), _document(_run(ENV_001="fail", ENV_002="pass"))
    comparison = compare(old, new)
    assert [change.rule for change in comparison.regressions] == ["ENV-001"]
    assert [change.rule for change in comparison.fixes] == ["ENV-002"]
    assert comparison.regressed
    text = as_text(comparison)
    assert text.startswith("1 regressions, 1 fixes")
    assert "- ENV-001: pass → fail" in text and "- ENV-002: fail → pass" in text


def test_other_verdicts_evidence_added_and_removed_rules() -> None:
    old_data, new_data = _run(), _run(SEARCH_004="pass", GATE_002="pass")
    new_data["rules"][1]["failures"][0]["observed"] = "another answer"
    removed = new_data["rules"].pop(0)  # ENV-001, a pass
    new_data["counts"]["pass"] -= 1
    added = copy.deepcopy(removed) | {"id": "ENV-009"}
    new_data["rules"].append(added)
    new_data["counts"]["pass"] += 1
    comparison = compare(_document(old_data), _document(new_data))
    assert not comparison.regressed
    assert [c.rule for c in comparison.other_verdicts] == ["SEARCH-004", "GATE-002"]
    assert [c.rule for c in comparison.changed_evidence] == ["ENV-002"]
    assert [c.rule for c in comparison.added] == ["ENV-009"]
    assert [c.rule for c in comparison.removed] == ["ENV-001"]


def test_the_same_run_twice_changes_nothing() -> None:
    comparison = compare(_document(_run()), _document(_run()))
    assert as_text(comparison) == "No rule changed.\n" and not comparison.regressed


def test_reports_of_two_contracts_are_not_compared() -> None:
    other = _run()
    other["spec"]["contract"] = "mem"
    with pytest.raises(NotComparable, match="different contracts"):
        compare(_document(_run()), _document(other))
    with pytest.raises(NotComparable):
        as_markdown([_document(_run()), _document(other)])


def test_the_matrix_has_a_row_per_rule_and_a_column_per_run() -> None:
    first, second = _run(), _run(ENV_001="fail")
    second["target"]["name"] = "vendor | x"
    second["rules"].pop()  # a rule the second run did not have
    second["counts"] = _run(ENV_001="fail")["counts"]
    second["counts"]["pass"] -= 1
    table = as_markdown([_document(first), _document(second)])
    assert "| Rule | Level | reference (engram-reference 0.1.0) | vendor \\| x (" in table
    assert "| ENV-001 | must | ✅ pass | ❌ fail |" in table
    last = table.rstrip().splitlines()[-1]
    assert last.startswith("| IDEM-004 |") and last.endswith(" | · |")
    page = as_html([_document(first), _document(second)])
    assert page.count("<tr><td>") == len(first["rules"]) and "<script" not in page


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("engram-conformance")), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_diff_and_matrix_from_the_command_line(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_run()), encoding="utf-8")
    new.write_text(json.dumps(_run(ENV_001="fail")), encoding="utf-8")
    regressed = _cli("diff", str(old), str(new))
    assert (regressed.returncode, regressed.stdout.splitlines()[0]) == (1, "1 regressions, 0 fixes")
    assert _cli("diff", str(old), str(old)).returncode == 0
    page = tmp_path / "matrix.html"
    matrix = _cli("matrix", str(old), str(new), "--html", str(page))
    assert matrix.returncode == 0 and "| ENV-001 | must | ✅ pass | ❌ fail |" in matrix.stdout
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("content", "problem"),
    [("{}", "not a report"), ("not json", "not a report"), (None, "different contracts")],
)
def test_bad_reports_are_one_line_and_exit_2(
    tmp_path: Path, content: str | None, problem: str
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(_run()), encoding="utf-8")
    if content is None:
        other = _run()
        other["spec"]["contract"] = "mem"
        content = json.dumps(other)
    bad.write_text(content, encoding="utf-8")
    for args in (("diff", str(good), str(bad)), ("matrix", str(good), str(bad))):
        result = _cli(*args)
        assert result.returncode == 2, result.stderr
        assert problem in result.stderr and len(result.stderr.splitlines()) == 1
        assert "Traceback" not in result.stderr
