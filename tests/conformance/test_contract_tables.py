"""Each contract reads its own tables of a descriptor (``targets.contract_tables``): the core's
schema composed with every registered contract's, each contract's policy parsed from them."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from engram_conformance.conformance import contracts
from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.engram_memory import settings as engram_memory
from engram_conformance.conformance.mem import settings as mem
from engram_conformance.conformance.targets.contract_tables import (
    NO_SETTINGS,
    ContractSettings,
    NoPolicy,
    composed,
)
from engram_conformance.conformance.targets.descriptor import (
    SCHEMA,
    DescriptorError,
    load_descriptor,
)
from engram_conformance.spec import registry
from jsonschema import Draft202012Validator

from ..layout import REPO_ROOT

HEAD = 'name = "t"\n[server]\ntransport = "stdio"\ncommand = ["t"]\n'


def _descriptor(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "target.toml"
    path.write_text(HEAD + text, encoding="utf-8")
    return path


def test_each_contract_reads_its_own_keys_of_one_policy_table(tmp_path: Path) -> None:
    path = _descriptor(
        tmp_path,
        '[policy]\ntools = ["mem_save"]\nsemantic_channel = true\ndedupe_window_s = 6\n'
        '[answers.mem_save]\nid = "/id"\n',
    )
    descriptor = load_descriptor(path, every_settings())
    assert descriptor.claim == ("mem_save",)
    assert "tools" not in descriptor.tables["policy"]
    assert engram_memory.parse(descriptor.tables) == engram_memory.Policy(semantic_channel=True)
    assert mem.parse(descriptor.tables) == mem.Policy(
        dedupe_window_s=6, answers=(("mem_save", "id", "/id"),)
    )


def test_a_descriptor_without_tables_gets_each_contract_s_defaults(tmp_path: Path) -> None:
    descriptor = load_descriptor(_descriptor(tmp_path, ""), every_settings())
    assert descriptor.claim is None
    assert engram_memory.parse(descriptor.tables) == engram_memory.Policy()
    assert mem.parse(descriptor.tables) == mem.Policy()


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        (
            "[policy]\ndedupe_windw_s = 6\n",
            "policy.dedupe_windw_s",
            "did you mean 'dedupe_window_s'",
        ),
        ("[policy]\nsemantic_chanel = true\n", "policy.semantic_chanel", "did you mean"),
        ("[policy]\ntool = []\n", "policy.tool", "did you mean 'tools'"),
        ("[answer.mem_save]\nid = '/id'\n", "answer", "did you mean 'answers'"),
        ("[answers.mem_save]\nid = 'id'\n", "answers.mem_save.id", "neither a JSON Pointer"),
        ("[policy]\nadmission = 'everything'\n", "policy.admission", "is not one of"),
    ],
)
def test_a_wrong_key_of_a_contract_s_table_is_worded_with_its_file_and_key(
    tmp_path: Path, text: str, key: str, problem: str
) -> None:
    path = _descriptor(tmp_path, text)
    with pytest.raises(DescriptorError) as raised:
        load_descriptor(path, every_settings())
    assert raised.value.file == str(path)
    assert raised.value.key == key
    assert problem in raised.value.problem


def test_without_the_contracts_tables_the_core_knows_only_the_claim(tmp_path: Path) -> None:
    path = _descriptor(tmp_path, "[policy]\ntools = []\ndedupe_window_s = 6\n")
    with pytest.raises(DescriptorError) as raised:
        load_descriptor(path, ())
    assert raised.value.key == "policy.dedupe_window_s"


def test_a_key_two_contracts_give_must_satisfy_both() -> None:
    positive = ContractSettings(tables={"policy": {"properties": {"n": {"minimum": 1}}}})
    small = ContractSettings(tables={"policy": {"properties": {"n": {"maximum": 3}}}})
    validator = Draft202012Validator(composed(SCHEMA, [positive, small]))
    head = {"name": "t", "server": {"transport": "stdio", "command": ["t"]}}
    assert validator.is_valid({**head, "policy": {"n": 2}})
    assert not validator.is_valid({**head, "policy": {"n": 5}})
    assert not validator.is_valid({**head, "policy": {"n": 0}})


def test_a_contract_without_settings_promises_nothing() -> None:
    assert NO_SETTINGS.parse({"policy": {"dedupe_window_s": 6}}) == NoPolicy()
    assert NO_SETTINGS.tables == {}


def test_each_shipped_contract_gives_its_settings() -> None:
    assert contracts.contract("engram-memory").settings is engram_memory.SETTINGS
    assert contracts.contract("mem").settings is mem.SETTINGS


def test_each_registration_names_its_plug_ins_settings() -> None:
    for name in contracts.names():
        assert contracts.settings(name) is contracts.contract(name).settings


def test_a_plug_in_whose_settings_are_not_its_registrations_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The registration names the settings so that they load without the plug-in: the two must
    be one value, or a descriptor would be validated against tables the run does not read."""
    shipped = registry.registration("mem")
    monkeypatch.setattr(registry, "registration", lambda name: replace(shipped, settings=None))
    with pytest.raises(registry.BadRegistration, match=r"mem's plug-in .* settings other than"):
        contracts.contract("mem")


def test_loading_a_descriptor_imports_no_plug_in(tmp_path: Path) -> None:
    """Validated against every registered contract's tables before the run knows its contract, a
    descriptor loads each one's settings module alone: no plug-in, no check, neither the SDK
    nor Hypothesis (about a second at every start of ``run``)."""
    heavy = ["mcp", "hypothesis"]
    for name in contracts.names():
        plugin = registry.registration(name).plugin.partition(":")[0]
        heavy += [plugin, plugin.rpartition(".")[0] + ".checks"]
    descriptor = REPO_ROOT / "targets" / "reference.toml"
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from engram_conformance.conformance.contracts import every_settings\n"
        "from engram_conformance.conformance.targets.descriptor import load_descriptor\n"
        f"load_descriptor(Path({str(descriptor)!r}), every_settings())\n"
        f"heavy = {heavy!r}\n"
        "print(*sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.')"
        " for h in heavy)))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == []


def test_settings_from_a_schema_file_take_its_properties_as_tables(tmp_path: Path) -> None:
    table = {"type": "object", "properties": {"n": {"type": "integer"}}}
    schema = tmp_path / "tables.schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"extra": table}}))
    settings = ContractSettings.from_schema_file(schema, dict, stdio_env={"HOME": "{state_dir}"})
    assert settings.tables == {"extra": table}
    assert settings.parse({"extra": {"n": 1}}) == {"extra": {"n": 1}}
    assert settings.stdio_env == {"HOME": "{state_dir}"}
