"""``engram-conformance fuzz``'s bad inputs: one line on stderr and exit 2, before any worker
starts; and the model check each contract names for campaigns."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.contracts import contract
from engram_conformance.conformance.targets.launch import free_port
from engram_conformance.spec import registry


def refused(*arguments: str) -> str:
    """The one line ``fuzz`` says on stderr when it refuses ``arguments`` with exit code 2."""
    result = CliRunner().invoke(main, ["fuzz", *arguments])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("engram-conformance: "), lines
    return lines[0]


def test_a_campaign_needs_a_bound() -> None:
    assert "give --minutes, --examples or both" in refused("--reference")


def test_a_campaign_needs_one_target() -> None:
    said = refused("--examples", "5")
    assert "give exactly one of --target, --reference, --stdio, --url" in said


@pytest.mark.parametrize("minutes", ["0", "-1", "nan", "inf"])
def test_minutes_are_a_positive_number(minutes: str) -> None:
    assert "is not a number of minutes above 0" in refused("--reference", "--minutes", minutes)


@pytest.mark.parametrize(("option", "value"), [("--workers", "0"), ("--examples", "0")])
def test_counts_are_positive(option: str, value: str) -> None:
    assert f"'{option}'" in refused("--reference", "--examples", "1", option, value)


def test_a_redis_database_that_does_not_answer_is_refused() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    said = refused("--reference", "--examples", "1", "--database", url)
    assert f"the Redis database {url} does not answer" in said


def test_a_database_folder_that_cannot_be_made_is_refused(tmp_path: Path) -> None:
    blocking = tmp_path / "a-file"
    blocking.write_text("", "utf-8")
    said = refused("--reference", "--examples", "1", "--database", str(blocking / "db"))
    assert f"the database folder {blocking / 'db'} cannot be made" in said


def test_a_bad_descriptor_is_refused(tmp_path: Path) -> None:
    descriptor = tmp_path / "bad.toml"
    descriptor.write_text('name = "x"\n', "utf-8")
    said = refused("--target", str(descriptor), "--examples", "1")
    assert str(descriptor) in said


@pytest.mark.parametrize("name", registry.names())
def test_each_contract_names_its_model_check_for_campaigns(name: str) -> None:
    plugin = contract(name)
    assert plugin.model_check is not None
    check = plugin.checks().scripted[plugin.model_check]
    assert check.profile == "full"
