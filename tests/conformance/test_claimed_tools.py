"""The tools a descriptor claims (``policy.tools``) are any names to its schema, which cannot
know the contract a run tests; once the contract is chosen, a name it does not have is a
DescriptorError (the CLI's exit code 2), never a rule verdict."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.launching import chosen_contract
from engram_conformance.conformance.targets.descriptor import DescriptorError, load_descriptor

from ..conftest import REPO_ROOT


def _claiming(tmp_path: Path, tools: str) -> Path:
    shipped = (REPO_ROOT / "targets" / "reference.toml").read_text(encoding="utf-8")
    lines = [
        f"tools = [{tools}]" if line.startswith("tools = ") else line
        for line in shipped.splitlines()
    ]
    path = tmp_path / "claiming.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_tool_of_another_contract_is_refused_when_the_contract_is_chosen(
    tmp_path: Path,
) -> None:
    claiming = _claiming(tmp_path, '"engram_memory_search", "mem_save"')
    descriptor = load_descriptor(claiming, every_settings())
    assert descriptor.claim == ("engram_memory_search", "mem_save")
    with pytest.raises(DescriptorError) as raised:
        chosen_contract(descriptor)
    assert raised.value.key == "policy.tools"
    assert "mem_save" in raised.value.problem
    assert "engram-memory" in raised.value.problem
    assert "engram_memory_search" not in raised.value.problem.split("(")[0]


def test_a_claim_of_the_contracts_own_tools_is_kept(tmp_path: Path) -> None:
    descriptor = load_descriptor(_claiming(tmp_path, '"engram_memory_search"'), every_settings())
    assert chosen_contract(descriptor).name == "engram-memory"


def test_the_run_command_refuses_it_with_exit_code_2(tmp_path: Path) -> None:
    path = _claiming(tmp_path, '"engram_memory_search", "no_such_tool"')
    result = CliRunner().invoke(main, ["run", "--target", str(path)])
    assert result.exit_code == 2, result.output
    assert "policy.tools" in result.output
    assert "no_such_tool" in result.output
