"""The mem contract plugs into the core: its plug-in has every member of ``Contract``, the
registry and detection find it, a run against the mem reference decides the DISC rules and
reports every rule no check decides yet as error, and the spec commands take ``--contract mem``.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from engram_conformance.conformance import contracts
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.launching import run_launched
from engram_conformance.conformance.mem.plugin import CONTRACT
from engram_conformance.conformance.runner import RunOptions
from engram_conformance.conformance.session import Session
from engram_conformance.conformance.targets.launch import InProcessTarget
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.reference_impl.mem.project import current_project
from engram_conformance.reference_impl.mem.server import build_server
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.spec.engram_memory import load as load_engram_memory

from ...mutants.mem.catalog.discovery import SaveInsistsOnScope
from .inprocess import PROJECT, run_against

NO_CHECK = "not testable here: no check evaluated this rule"


def test_the_plugin_is_a_contract_value() -> None:
    assert isinstance(CONTRACT, contracts.Contract)
    assert inspect.iscoroutinefunction(CONTRACT.replay)
    assert CONTRACT.name == "mem"
    assert CONTRACT.discovery_check in CONTRACT.checks().scripted
    assert CONTRACT.checks().scripted[CONTRACT.discovery_check].rules == ("DISC-003",)


def test_the_registry_and_detection_find_it() -> None:
    assert contracts.contract("mem") is CONTRACT
    assert contracts.DEFAULT == "engram-memory"
    assert contracts.recognised(["mem_save", "mem_search", "other_tool"]) is CONTRACT
    six = list(load_engram_memory().tools)
    assert contracts.recognised(six).name == "engram-memory"
    assert contracts.recognised(["other_tool"]) is None


def test_its_host_writes_no_key(tmp_path: Path) -> None:
    host = CONTRACT.host(CONTRACT.load_spec(), "r1")
    assert host.write_public_key(tmp_path / "key.pem") is None
    assert list(tmp_path.iterdir()) == []


def test_identity_and_class() -> None:
    spec = CONTRACT.load_spec()
    identity = CONTRACT.identity(spec)
    assert identity["contract_version"] and identity["spec_version"]
    assert identity["digest"].startswith("sha256:") and len(identity["digest"]) == 71
    assert CONTRACT.conformance_class(spec, list(spec.seed_tools))[0] == "full"
    kind, words = CONTRACT.conformance_class(spec, ["mem_save"])
    assert kind == "partial" and "mem_judge" in words


def test_a_run_against_the_mem_reference_passes_every_checked_rule() -> None:
    """Over stdio, as ``run --reference --contract mem`` starts it: every rule a check decides
    passes (or is not applicable, with its reason), the restart and the dedupe window included."""
    spec = CONTRACT.load_spec()
    result, _ = run_launched(CONTRACT, spec, reference_descriptor("mem"), RunOptions(seed=1))
    assert result.contract == "mem"
    checked = set(CONTRACT.checks().of_rule())
    assert {"SAVE-008", "DEDUP-005"} <= checked
    for rule in checked:
        found = result.verdicts[rule]
        assert found.verdict == "pass" or (found.verdict == "not_applicable" and found.reason), (
            rule,
            found,
        )
    assert result.verdicts["SAVE-008"].verdict == result.verdicts["DEDUP-005"].verdict == "pass"
    assert "widens v1.7.0" in str(result.verdicts["DISC-004"].reason)
    for rule in spec.rules.values():
        if rule.id in checked:
            continue
        expected = ("error", NO_CHECK) if rule.testable else ("not_applicable",)
        found = result.verdicts[rule.id]
        assert (found.verdict, found.reason)[: len(expected)] == expected, rule.id


def test_replay_sends_a_transcript_again(tmp_path: Path) -> None:
    """The mutant's refused save, replayed against the reference, is accepted: its answer differs;
    the tools/list before it does not."""
    failed = run_against(tmp_path / "mutant", wiring_mutant=SaveInsistsOnScope, only=("DISC-001",))
    entries = failed.transcripts["save_takes_the_seed_signature"]
    service = MemService(tmp_path, current_project(PROJECT, tmp_path), None)
    target = InProcessTarget("mem-reference", lambda: build_server(service), tmp_path)

    async def replayed() -> list:
        async with target.connect() as connection:
            session = Session(connection, 10.0)
            return await CONTRACT.replay(session, CONTRACT.host(CONTRACT.load_spec(), "r"), entries)

    try:
        done = anyio.run(replayed)
    finally:
        service.close()
    assert [entry.recorded["method"] for entry in done] == [e["method"] for e in entries]
    [save] = [entry for entry in done if entry.recorded.get("tool") == "mem_save"]
    assert save.recorded["answer"] != save.observed.answer() and save.diff
    assert save.observed.is_error is False
    assert all(not entry.diff for entry in done if entry.recorded["method"] == "tools/list")


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        (["spec", "lint", "--contract", "mem"], "spec lint: ok (114 rules"),
        (["spec", "docs", "--contract", "mem", "--check"], "docs/spec/mem.md is up to date"),
        (["rules", "--contract", "mem"], "DISC-004    should   schemas_widen_an_upstream_line"),
    ],
)
def test_the_spec_commands_take_the_mem_contract(arguments: list[str], shown: str) -> None:
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    assert shown in result.output


def test_spec_docs_writes_the_mem_page(tmp_path: Path) -> None:
    output = tmp_path / "mem.md"
    result = CliRunner().invoke(
        main, ["spec", "docs", "--contract", "mem", "--output", str(output)]
    )
    assert result.exit_code == 0, result.output
    assert output.read_text(encoding="utf-8") == CONTRACT.markdown(CONTRACT.load_spec())


def test_spec_openapi_takes_the_mem_contract(tmp_path: Path) -> None:
    output = tmp_path / "mem.json"
    arguments = ["spec", "openapi", "--contract", "mem", "--output", str(output)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    paths = json.loads(output.read_text(encoding="utf-8"))["paths"]
    assert {f"/tools/{tool}" for tool in CONTRACT.load_spec().tools} == set(paths)
