"""Issue 25's "sharded runs merged give the same verdicts as one run": each contract's quick
profile against its bundled reference, with one seed, run whole and in shards through the
kit's command (in this process), then the shards merged; and what a shard's reports say of the
rules they did not run.

Both runs are ``--only`` eight families of the contract (``FAMILIES``), not all of them: the
plan and the merge treat a selection as they treat the whole run (the plan is made over the
rules run, in groups of checks), and these families' checks are split across the shards so
that every shard judges rules of several families (asserted); engram-memory's include a group
of several families, the per-call rules (ENV) joined with the checks of ERR, REDACT and
SEARCH that provoke the answers they judge. The families left out are those whose checks
wait out windows, start extra servers or make hundreds of calls."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from .inprocess import command

SEED = "2025"
#: contract -> how many shards its run is split into
SHARDS = {"engram-memory": 2, "mem": 3}
#: contract -> the families both the single run and the shards run
FAMILIES = {
    "engram-memory": "ENV,XREF,SCOPE,SEARCH,PAGE,ERR,REDACT,PRIV",
    "mem": "TOPIC,SCOPE,DEL,UPD,SESS,CTX,PRIV,JUDGE",
}


def kit(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``engram-conformance ARGUMENTS`` in ``cwd``, in this process (``inprocess.command``)."""
    return command(*arguments, cwd=cwd)


def report(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("contract", sorted(SHARDS))
def test_sharded_runs_merged_give_the_same_verdicts_as_one_run(
    contract: str, tmp_path: Path
) -> None:
    count = SHARDS[contract]
    run = ["run", "--reference", "--contract", contract, "--seed", SEED, "--only"]
    run += [FAMILIES[contract], "-q"]
    whole = kit(*run, "--report-dir", "whole", cwd=tmp_path)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    for index in range(1, count + 1):
        part = kit(*run, "--shard", f"{index}/{count}", "--report-dir", f"s{index}", cwd=tmp_path)
        assert part.returncode == 0, part.stdout + part.stderr
    shards = [f"s{index}/report.json" for index in range(count, 0, -1)]  # any order
    merge = kit("merge", *shards, "--report-dir", "merged", "--format", "sarif", cwd=tmp_path)
    assert merge.returncode == whole.returncode, merge.stdout + merge.stderr
    one, merged = report(tmp_path / "whole"), report(tmp_path / "merged")
    verdicts = [(rule["id"], rule["verdict"]) for rule in one["rules"]]
    assert [(rule["id"], rule["verdict"]) for rule in merged["rules"]] == verdicts
    assert merged["counts"] == one["counts"] and merged["exit_code"] == one["exit_code"]
    assert merged["conformance"]["summary"] == one["conformance"]["summary"]
    assert merged["run"]["merged_shards"] == count and "shard" not in merged["run"]
    own = [[r["id"] for r in report(tmp_path / f"s{i}")["rules"]] for i in range(1, count + 1)]
    assert sorted(rule for rules in own for rule in rules) == sorted(r for r, _ in verdicts)
    families = [{rule.rsplit("-", 1)[0] for rule in rules} for rules in own]
    assert all(len(named) > 1 for named in families), f"each shard's families: {families}"
    _shard_reports_say_what_they_did_not_run(tmp_path / "s1", count)


def _shard_reports_say_what_they_did_not_run(folder: Path, count: int) -> None:
    data = report(folder)
    shard = data["run"]["shard"]
    elsewhere = [rule for rule, index in shard["plan"].items() if index != 1]
    assert shard["index"] == 1 and shard["count"] == count and elsewhere
    assert not {rule["id"] for rule in data["rules"]} & set(elsewhere)
    assert f"(shard 1 of {count}, " in data["conformance"]["summary"]
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    assert f"Not run here: the rules of other shards ({len(elsewhere)})" in summary
    assert elsewhere[0] in summary.split("Not run here")[1]
    suites = ET.parse(folder / "junit.xml").getroot()
    names = {case.get("name") for case in suites.iter("testcase")}
    assert names == {rule["id"] for rule in data["rules"]}
    properties = {p.get("name"): p.get("value") for p in suites.iter("property")}
    assert properties["shard"] == f"1/{count}"
    assert properties["rules_not_run_here"] == str(len(elsewhere))
