"""A second contract plugs in with one registry entry: the toy of ``tests/contracts/toy`` (one
tool, one rule, one check, a server and its mutant) runs through the same core as
engram-memory, and imports nothing of engram-memory."""

from __future__ import annotations

import ast
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance import contracts
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.launching import chosen_contract, run_launched
from engram_conformance.conformance.runner import RunOptions, RunResult
from engram_conformance.conformance.targets.descriptor import stdio_descriptor
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.reports.document import load as load_report

TOY = Path(__file__).parent / "toy"
SERVER = TOY / "server.py"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> contracts.Contract:
    """The registry entry: the only line outside the toy's own package."""
    monkeypatch.setitem(contracts.CONTRACTS, "toy", "tests.contracts.toy.plugin")
    return contracts.contract("toy")


def toy_server(*flags: str) -> str:
    return shlex.join([sys.executable, str(SERVER), *flags])


def run_toy(plugin: contracts.Contract, *flags: str) -> RunResult:
    descriptor = stdio_descriptor(toy_server(*flags))
    return run_launched(plugin, plugin.load_spec(), descriptor, RunOptions(seed=1))[0]


def test_the_toy_server_passes_its_rule(toy: contracts.Contract) -> None:
    result = run_toy(toy)
    assert result.contract == "toy"
    assert result.tools_listed == ["toy_echo"]
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == {"TOY-001": "pass"}
    assert result.checks_of_rule == {"TOY-001": ["echo_answers_its_text"]}


def test_the_toy_mutant_fails_its_rule(toy: contracts.Contract) -> None:
    result = run_toy(toy, "--broken")
    assert result.verdicts["TOY-001"].verdict == "fail"
    [failure] = result.ledger.evidence["TOY-001"].failures
    assert failure.check == "echo_answers_its_text"
    assert failure.observed.isupper()


def test_tools_list_decides_the_contract(toy: contracts.Contract) -> None:
    assert chosen_contract(stdio_descriptor(toy_server())) is toy
    reference = stdio_descriptor(shlex.join(reference_descriptor().command))
    assert chosen_contract(reference).name == "engram-memory"
    assert chosen_contract(stdio_descriptor(toy_server()), "engram-memory").name == (
        "engram-memory"
    )


def test_an_unknown_contract_is_named_with_the_known_ones(toy: contracts.Contract) -> None:
    with pytest.raises(contracts.UnknownContract, match="knows engram-memory, mem, toy"):
        contracts.contract("nope")


def test_the_toy_imports_nothing_of_another_contract() -> None:
    for module in TOY.glob("*.py"):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = [
            node.module or ""
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 0
        ] + [
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        ]
        assert not [name for name in imported if "engram_memory" in name], module.name


def test_the_cli_reports_the_toy_under_its_name(toy: contracts.Contract, tmp_path: Path) -> None:
    arguments = ["run", "--stdio", toy_server("--broken"), "--contract", "toy", "--seed", "1"]
    result = CliRunner().invoke(main, [*arguments, "--report-dir", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "Full toy conformance: 0 pass, 1 fail" in result.output
    document = load_report(tmp_path / "report.json")
    assert document.spec.contract == "toy"
    assert [(rule.id, rule.verdict) for rule in document.rules] == [("TOY-001", "fail")]
    assert 'classname="toy.TOY"' in (tmp_path / "junit.xml").read_text(encoding="utf-8")
