"""Hand-made shard reports: what ``engram-conformance merge`` makes of the shards of one run,
each refusal (shards of another run, a missing or doubled shard, a report of no shard: one
line and exit 2), and what the renderings of a shard's and a merged report say."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.shard_merge import NotMergeable, merged
from engram_conformance.reports import InvalidReport, ReportDocument, Verdict, html, junit, markdown
from engram_conformance.reports.sarif import sarif_log
from engram_conformance.reports.text import shard_line

from ..reports.documents import small
from ..reports.test_sarif import check_code_scanning_log

#: The small document's rules, split into two shards.
PLAN = {"ENV-001": 1, "ENV-002": 2, "SEARCH-004": 1, "GATE-002": 2, "IDEM-003": 1, "IDEM-004": 2}


def shard_data(index: int, count: int = 2) -> dict[str, Any]:
    """Shard ``index`` of the small document's run, as report.json holds it."""
    data = small()
    data["run"]["shard"] = {"index": index, "count": count, "plan": PLAN}
    data["run"]["command"] += f" --shard {index}/{count}"
    data["rules"] = [rule for rule in data["rules"] if PLAN[rule["id"]] == index]
    shown = {v: sum(rule["verdict"] == v for rule in data["rules"]) for v in data["counts"]}
    data["counts"] = shown
    data["exit_code"] = 1 if any(r["verdict"] in ("fail", "error") for r in data["rules"]) else 0
    if any(rule.get("baseline") == "stale" for rule in data["rules"]):
        data["exit_code"] = 1
    counts = ", ".join(f"{n} {Verdict(v).label}" for v, n in shown.items())
    elsewhere = sum(part != index for part in PLAN.values())
    data["conformance"]["summary"] = (
        f"Full conformance class (all six tools): {counts} (shard {index} of {count}, "
        f"{len(PLAN) - elsewhere} of {len(PLAN)} rules; the other {elsewhere} belong to other "
        "shards, not run here)"
    )
    return data


def shard(index: int, **changes: Any) -> tuple[str, ReportDocument]:
    data = shard_data(index)
    for pointer, value in changes.items():
        part, key = pointer.split("__")
        data[part][key] = value
    return f"s{index}/report.json", ReportDocument.from_dict(data)


def test_the_shards_of_one_run_merge_into_its_report() -> None:
    whole = ReportDocument.from_dict(small())
    document = merged([shard(2), shard(1)], command="engram-conformance merge s1 s2")
    assert [rule.id for rule in document.rules] == list(PLAN)
    assert document.rules == whole.rules
    assert document.counts == whole.counts and document.exit_code == whole.exit_code == 1
    assert document.conformance.summary == whole.conformance.summary
    assert document.run.shard is None and document.run.merged_shards == 2
    assert document.run.command == "engram-conformance merge s1 s2"
    assert document.run.duration_s == pytest.approx(2 * whole.run.duration_s)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        (
            {"run__seed": 124},
            "s2/report.json is a shard of another run than s1/report.json: seed 124, not 123",
        ),
        ({"run__profile": "full"}, "another run than s1/report.json: profile full, not quick"),
        ({"run__only": ["ENV"]}, "another run than s1/report.json: --only ENV, not none"),
        (
            {"spec__digest": "sha256:" + "cd" * 32},
            "another run than s1/report.json: spec 1.0.0 1.0.0 sha256:cdcd",
        ),
        (
            {"spec__contract": "mem"},
            "another run than s1/report.json: contract mem, not engram-memory",
        ),
        (
            {"target__name": "other"},
            "another run than s1/report.json: target other stdio targets/reference.toml",
        ),
        (
            {
                "target__protocol": {
                    "era_requested": "auto",
                    "era": "2025-11-25",
                    "protocol_version": "2025-11-25",
                }
            },
            "another run than s1/report.json: MCP era auto 2025-11-25, not none",
        ),
    ],
)
def test_shards_of_another_run_are_refused(changes: dict[str, Any], problem: str) -> None:
    with pytest.raises(NotMergeable) as refused:
        merged([shard(1), shard(2, **changes)], command="merge")
    assert problem in str(refused.value)


def test_another_shard_count_or_plan_is_refused() -> None:
    three = shard_data(2, count=3)
    with pytest.raises(NotMergeable, match="shard count 3, not 2"):
        merged([shard(1), ("s2", ReportDocument.from_dict(three))], command="merge")
    other_plan = shard_data(2)
    other_plan["run"]["shard"]["plan"] = {**PLAN, "SEARCH-004": 2}
    other_plan["rules"].append(small()["rules"][2])
    other_plan["counts"]["warn"] += 1
    with pytest.raises(NotMergeable, match="another plan of shards"):
        merged([shard(1), ("s2", ReportDocument.from_dict(other_plan))], command="merge")


def test_a_missing_or_doubled_shard_or_a_whole_run_is_refused() -> None:
    with pytest.raises(NotMergeable, match=r"^shard 2 of 2 is missing"):
        merged([shard(1)], command="merge")
    with pytest.raises(NotMergeable, match=r"^shard 1 of 2 is given twice: s1/report\.json and s1"):
        merged([shard(1), shard(2), shard(1)], command="merge")
    whole = ("whole/report.json", ReportDocument.from_dict(small()))
    with pytest.raises(NotMergeable, match=r"^whole/report\.json is not a shard's report"):
        merged([shard(1), whole], command="merge")


def test_a_shard_report_holding_rules_of_another_shard_is_invalid() -> None:
    data = shard_data(1)
    data["rules"].append(small()["rules"][1])  # ENV-002, of shard 2
    data["counts"]["fail"] += 1
    with pytest.raises(InvalidReport, match="not the rules the shard's plan gives it"):
        ReportDocument.from_dict(data)


def _write(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True)
    path = folder / "report.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_merge_command_writes_the_reports_and_exits_as_run_would(tmp_path: Path) -> None:
    one, two = _write(tmp_path / "s1", shard_data(1)), _write(tmp_path / "s2", shard_data(2))
    (tmp_path / "s2" / "transcripts").mkdir()
    (tmp_path / "s2" / "transcripts" / "x.jsonl").write_text("{}\n", encoding="utf-8")
    out = tmp_path / "merged"
    result = CliRunner().invoke(
        main, ["merge", str(one), str(two), "--report-dir", str(out), "--format", "sarif"]
    )
    assert result.exit_code == 1, result.output  # the small run has a fail
    assert "merged from the reports of 2 shards" in result.output
    for name in ("report.json", "junit.xml", "summary.md", "report.html", "report.sarif"):
        assert (out / name).is_file(), name
    assert (out / "transcripts" / "x.jsonl").read_text(encoding="utf-8") == "{}\n"
    assert (
        json.loads((out / "report.json").read_text(encoding="utf-8"))["run"]["merged_shards"] == 2
    )


@pytest.mark.parametrize("shards", [("s1",), ("s1", "s2", "s2"), ("s1", "other")])
def test_the_merge_command_refuses_in_one_line_and_exit_2(
    tmp_path: Path, shards: tuple[str, ...]
) -> None:
    _write(tmp_path / "s1", shard_data(1))
    _write(tmp_path / "s2", shard_data(2))
    _write(tmp_path / "other", {**shard_data(2), "run": {**shard_data(2)["run"], "seed": 9}})
    paths = [str(tmp_path / name / "report.json") for name in shards]
    result = CliRunner().invoke(main, ["merge", *paths, "--report-dir", str(tmp_path / "m")])
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith("engram-conformance: ")
    assert not (tmp_path / "m").exists()


def test_a_shards_renderings_name_the_shard_and_the_rules_not_run_there() -> None:
    document = ReportDocument.from_dict(shard_data(1))
    line = "shard 1 of 2: 3 of 6 rules; the other 3 belong to other shards and were not run here"
    assert shard_line(document) == line
    log = sarif_log(document)
    check_code_scanning_log(log)
    (run,) = log["runs"]
    assert run["properties"]["shard"] == "1/2"
    assert run["properties"]["notRunHere"] == ["ENV-002", "GATE-002", "IDEM-004"]
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == {
        "ENV-001",
        "SEARCH-004",
        "IDEM-003",
    }
    page = html.render(document)
    assert line in page and "shard 1 of 2" in page
    summary = markdown.render(document)
    assert "(shard 1 of 2: 3 of 6 rules;" in summary
    assert "- shard 2: ENV-002, GATE-002, IDEM-004" in summary
    assert "<summary>Rules of this shard (3)</summary>" in summary


def test_a_merged_reports_renderings_say_it_was_merged() -> None:
    document = merged([shard(1), shard(2)], command="merge")
    assert shard_line(document) == "merged from the reports of 2 shards"
    assert sarif_log(document)["runs"][0]["properties"]["mergedShards"] == 2
    assert "merged from the reports of 2 shards" in markdown.render(document)
    suites = ET.fromstring(junit.render(document).split("\n", 1)[1])
    assert {
        p.get("value") for p in suites.iter("property") if p.get("name") == "merged_shards"
    } == {"2"}
