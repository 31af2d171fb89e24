"""A third contract plugs in as docs/architecture.md's checklist ("A third contract, step by
step") says, and the toy of ``tests/contracts/toy`` (one tool, one rule, one check, a server and
its mutant) follows it: 1. its spec (``spec.py``), 2. its checks in their run order
(``checks.py``), 3. its plug-in (``plugin.py``), 4. no target settings of its own (the
default: a descriptor promises it nothing), 5. its registration (``registration.py``, no
reference server), 6. one entry in the registry's group (``ENTRY``, the ``toy`` fixture), 9.
every front end takes it: ``run``, ``rules``, ``spec``, ``replay``, the pytest plugin and the
library API, and the server passes where its mutant fails. It imports nothing of another
contract."""

from __future__ import annotations

import ast
import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance import contracts
from engram_conformance.conformance.check_registry import Checks
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.launching import chosen_contract, run_launched
from engram_conformance.conformance.runner import RunOptions, RunResult
from engram_conformance.conformance.targets.contract_tables import NO_SETTINGS
from engram_conformance.conformance.targets.descriptor import stdio_descriptor
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.reports.document import load as load_report
from engram_conformance.spec import registry

from .toy import checks as toy_checks
from .toy import spec as toy_spec

pytest_plugins = ["pytester"]

TOY = Path(__file__).parent / "toy"
SERVER = TOY / "server.py"
#: the toy's one line outside its own package: its entry in the registry's group
ENTRY = "toy = tests.contracts.toy.registration:REGISTRATION"


@pytest.fixture
def toy(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator:
    """The toy registered as an installed distribution registers a contract: a dist-info folder
    whose ``entry_points.txt`` holds ``ENTRY``, on ``sys.path`` while the test runs."""
    site = tmp_path_factory.mktemp("site")
    info = site / "engram_toy_contract-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: engram-toy-contract\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[{registry.GROUP}]\n{ENTRY}\n")
    monkeypatch.syspath_prepend(str(site))
    yield contracts.contract("toy")


def toy_server(*flags: str) -> str:
    return shlex.join([sys.executable, str(SERVER), *flags])


def run_toy(plugin: contracts.Contract, *flags: str) -> RunResult:
    descriptor = stdio_descriptor(toy_server(*flags), contracts.every_settings())
    return run_launched(plugin, plugin.load_spec(), descriptor, RunOptions(seed=1))[0]


def invoke(*arguments: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(arguments))
    return result.exit_code, result.output


def test_the_registry_lists_it_after_the_default(toy: contracts.Contract) -> None:
    assert contracts.names() == ["engram-memory", "mem", "toy"]
    assert toy.name == "toy"
    with pytest.raises(contracts.UnknownContract, match="knows engram-memory, mem, toy"):
        contracts.contract("nope")


def test_the_library_api_runs_the_server_and_its_mutant(toy: contracts.Contract) -> None:
    result = run_toy(toy)
    assert result.contract == "toy"
    assert result.tools_listed == ["toy_echo"]
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == {"TOY-001": "pass"}
    assert result.checks_of_rule == {"TOY-001": ["echo_answers_its_text"]}
    broken = run_toy(toy, "--broken")
    assert broken.verdicts["TOY-001"].verdict == "fail"
    [failure] = broken.ledger.evidence["TOY-001"].failures
    assert failure.check == "echo_answers_its_text"
    assert failure.observed.isupper()


def test_a_descriptor_promises_it_nothing_and_other_contracts_tables_stay_theirs(
    toy: contracts.Contract, tmp_path: Path
) -> None:
    """Without settings of its own the toy takes the default (no table, ``NoPolicy``): a
    descriptor naming it may still hold another contract's tables, which mean nothing to it."""
    assert toy.settings is NO_SETTINGS
    descriptor = tmp_path / "toy.toml"
    descriptor.write_text(
        'name = "toy"\n[contract]\nname = "toy"\n'
        f'[server]\ntransport = "stdio"\ncommand = {json.dumps(shlex.split(toy_server()))}\n'
        '[policy]\ntools = ["toy_echo"]\nsemantic_channel = true\n'
        '[binding]\nmode = "signed-meta"\n',
        encoding="utf-8",
    )
    code, output = invoke("run", "--target", str(descriptor), "--report-dir", str(tmp_path / "r"))
    assert code == 0, output
    assert load_report(tmp_path / "r" / "report.json").spec.contract == "toy"


def test_tools_list_decides_the_contract(toy: contracts.Contract) -> None:
    settings = contracts.every_settings()
    toy_target = stdio_descriptor(toy_server(), settings)
    assert chosen_contract(toy_target) is toy
    reference = stdio_descriptor(shlex.join(reference_descriptor().command), settings)
    assert chosen_contract(reference).name == "engram-memory"
    assert chosen_contract(toy_target, "engram-memory").name == "engram-memory"


def test_run_reports_the_toy_under_its_name(toy: contracts.Contract, tmp_path: Path) -> None:
    code, output = invoke(
        *("run", "--stdio", toy_server("--broken"), "--contract", "toy", "--seed", "1"),
        *("--report-dir", str(tmp_path)),
    )
    assert code == 1, output
    assert "Full conformance class (every tool): 0 pass, 1 fail" in output
    document = load_report(tmp_path / "report.json")
    assert document.spec.contract == "toy"
    assert [(rule.id, rule.verdict) for rule in document.rules] == [("TOY-001", "fail")]
    assert 'classname="toy.TOY"' in (tmp_path / "junit.xml").read_text(encoding="utf-8")


@pytest.mark.parametrize("named", [(), ("--contract", "toy")], ids=["recognised", "named"])
def test_run_starts_the_server_once(
    toy: contracts.Contract, tmp_path: Path, named: tuple[str, ...]
) -> None:
    """Found from tools/list on the run's own first connection, the contract costs no start."""
    starts = tmp_path / "starts"
    server = toy_server("--starts", str(starts))
    code, output = invoke("run", "--stdio", server, *named, "--report-dir", str(tmp_path / "r"))
    assert code == 0, output
    assert "Full conformance class (every tool): 1 pass" in output
    assert starts.read_text(encoding="utf-8") == "started\n"


def test_replay_sends_a_toy_transcript_again(toy: contracts.Contract, tmp_path: Path) -> None:
    invoke("run", "--stdio", toy_server("--broken"), "--seed", "1", "--report-dir", str(tmp_path))
    transcript = tmp_path / "transcripts" / "echo_answers_its_text.jsonl"
    same = invoke("replay", str(transcript), "--stdio", toy_server("--broken"))
    assert same[0] == 0, same[1]
    assert "answered differently" in same[1] and ": differs" not in same[1]
    fixed = invoke("replay", str(transcript), "--stdio", toy_server(), "--contract", "toy")
    assert fixed[0] == 1, fixed[1]
    assert "toy_echo: differs" in fixed[1]


def test_rules_and_spec_take_it(toy: contracts.Contract, tmp_path: Path) -> None:
    code, listed = invoke("rules", "--contract", "toy")
    assert code == 0
    assert listed.startswith("TOY-001     must     echo_answers_its_text\n                     ")
    assert invoke("spec", "lint", "--contract", "toy") == (0, "spec lint: ok (1 rules, 1 tools)\n")
    page = tmp_path / "toy.md"
    assert invoke("spec", "docs", "--contract", "toy", "--output", str(page))[0] == 0
    assert page.read_text(encoding="utf-8").startswith("- TOY-001: toy_echo answers")
    code, output = invoke("spec", "openapi", "--contract", "toy")
    assert (code, json.loads(output)["openapi"]) == (0, "3.1.0")


def test_the_pytest_plugin_makes_its_rule_an_item(
    toy: contracts.Contract, pytester: pytest.Pytester
) -> None:
    words = ", ".join(json.dumps(word) for word in shlex.split(toy_server("--broken")))
    target = pytester.makefile(
        ".toml",
        toy=f'name = "toy"\n[server]\ntransport = "stdio"\ncommand = [{words}]\n'
        '[contract]\nname = "toy"\n',
    )
    result = pytester.runpytest("--engram-target", str(target), "--engram-seed", "1", "-v")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["engram::toy::TOY-001 FAILED*"])


def test_a_contract_without_a_reference_server_is_refused_by_reference(
    toy: contracts.Contract,
) -> None:
    code, output = invoke("run", "--reference", "--contract", "toy")
    assert (code, output) == (
        2,
        "engram-conformance: --reference: the toy contract has no reference server in this kit\n",
    )


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
        assert not [name for name in imported if ".mem" in name], module.name


def test_checks_run_in_the_declared_order_and_an_unplaced_family_is_named() -> None:
    registered = Checks(dict(toy_checks.SCRIPTED), dict(toy_checks.PER_CALL))
    assert list(registered.in_order([toy_checks]).scripted) == ["echo_answers_its_text"]
    with pytest.raises(ValueError, match=r"not in the run order: tests\.contracts\.toy\.checks"):
        registered.in_order([toy_spec])
