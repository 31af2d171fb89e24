"""No false alarms: a server that differs from the spec only where this kit decides (DESIGN.md,
upstream) and the seed is silent breaks no must rule. Its run reads warn on the profile rules
it differs on, and nothing else, and exits 0 (fixture ``own_decisions_server.py``)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.spec.engram_memory import load

SERVER = Path(__file__).parents[1] / "fixtures" / "own_decisions_server.py"
COMMAND = shlex.join([sys.executable, str(SERVER), "{state_dir}", "{host_public_key_file}"])
#: The profile rules the fixture differs on, each a decision the seed leaves to the kit.
DIFFERS_ON = {
    "ENV-003": "the envelope carries a traceId",
    "ENV-006": "auditId is the server's own",
    "ENV-012": "scores are strings",
    "ENV-013": "transaction_receipt_digest in upper-case hex",
    "ENV-014": "opaque cursors",
    "ENV-015": "valid_as_of an Instant string",
    "SEARCH-003": "ranks from 0",
    "SEARCH-005": "no profile_version in the rank receipt",
    "SEARCH-006": "response_digest of the value before the changes above",
    "SEARCH-017": "CAPABILITY_UNAVAILABLE for a semantic channel it lacks",
    "SCHEMA-035": "INVALID_SCHEMA for a digest of the wrong form",
    "SCHEMA-011": "so the order of checks reads INVALID_SCHEMA where INVALID_DIGEST comes first",
    "ERR-007": "messages that name their tool",
    "IDEM-015": "a replay's receipt with an event_id of its own",
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict]:
    report_dir = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(
        main, ["run", "--stdio", COMMAND, "--report-dir", str(report_dir)], catch_exceptions=False
    )
    document = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    return result.exit_code, document


def test_the_run_passes_the_gate(run: tuple[int, dict]) -> None:
    exit_code, _ = run
    assert exit_code == 0


def test_it_warns_on_exactly_the_decisions_it_differs_on(run: tuple[int, dict]) -> None:
    _, document = run
    verdicts = {rule["id"]: rule["verdict"] for rule in document["rules"]}
    assert {rule for rule, verdict in verdicts.items() if verdict != "pass"} - {
        rule for rule, verdict in verdicts.items() if verdict == "not_applicable"
    } == set(DIFFERS_ON)
    assert {verdicts[rule] for rule in DIFFERS_ON} == {"warn"}


def test_every_rule_it_differs_on_is_the_kits_decision() -> None:
    rules = load().rules
    assert {rules[rule].level for rule in DIFFERS_ON} == {"profile"}
    assert {rules[rule].source_document for rule in DIFFERS_ON} == {"design"}
