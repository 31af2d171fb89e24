"""``engram-conformance spec diff OLD NEW`` (issue 26, item 7): two versions of a contract's spec
compared, rule by rule and tool by tool."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("contract", "folder"), [("engram-memory", "engram_memory"), ("mem", "mem")]
)
def test_a_reworded_rule_and_a_removed_one_are_told(
    tmp_path: Path, contract: str, folder: str
) -> None:
    old = tmp_path / "old"
    shutil.copytree(REPO / "spec" / folder, old)
    rules = json.loads((old / "rules.json").read_text(encoding="utf-8"))
    first, second = rules["rules"][0], rules["rules"].pop(1)
    first["statement"] = "An older wording."
    (old / "rules.json").write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")
    arguments = ["spec", "diff", str(old), str(REPO / "spec" / folder), "--contract", contract]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    assert "## Rules added (1)" in result.output and f"- {second['id']} (" in result.output
    assert f"- {first['id']} statement: An older wording. → " in result.output
    same = CliRunner().invoke(main, ["spec", "diff", str(old), str(old), "--contract", contract])
    assert same.output == "No change.\n"
