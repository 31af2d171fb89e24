"""What a mem server's descriptor says of how it was started: ``[policy] dedupe_window_s``, the
window it was given (read from the shipped mem reference descriptor and from ``run --reference``,
refused when it is no positive number), and ``[server] cwd``, the empty folder it starts in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.mem.settings import parse
from engram_conformance.conformance.targets.descriptor import (
    DescriptorError,
    load_descriptor,
    stdio_descriptor,
)
from engram_conformance.conformance.targets.launch import LaunchedTarget, Workspace
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.spec.mem.registration import REFERENCE_DEDUPE_WINDOW_S

from ...conftest import REPO_ROOT

SHIPPED = REPO_ROOT / "targets" / "mem-reference.toml"


def test_the_shipped_descriptor_says_the_window_it_starts_the_reference_with() -> None:
    descriptor = load_descriptor(SHIPPED, every_settings())
    assert parse(descriptor.tables).dedupe_window_s == REFERENCE_DEDUPE_WINDOW_S
    started = descriptor.command[descriptor.command.index("--dedupe-window-s") + 1]
    assert float(started) == REFERENCE_DEDUPE_WINDOW_S


def test_run_reference_starts_and_declares_the_same_window() -> None:
    descriptor = reference_descriptor("mem")
    assert parse(descriptor.tables).dedupe_window_s == REFERENCE_DEDUPE_WINDOW_S
    assert descriptor.command[-2:] == ("--dedupe-window-s", str(REFERENCE_DEDUPE_WINDOW_S))
    assert parse(reference_descriptor("engram-memory").tables).dedupe_window_s is None


@pytest.mark.parametrize("window", ["0", "-5", '"six"'])
def test_a_window_that_is_no_positive_number_is_refused(tmp_path: Path, window: str) -> None:
    text = SHIPPED.read_text(encoding="utf-8").replace(
        f"dedupe_window_s = {REFERENCE_DEDUPE_WINDOW_S} ", f"dedupe_window_s = {window} "
    )
    path = tmp_path / "window.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DescriptorError) as raised:
        load_descriptor(path, every_settings())
    assert raised.value.key == "policy.dedupe_window_s"


def test_the_reference_starts_in_an_empty_folder_of_the_run(tmp_path: Path) -> None:
    """``cwd = "{work_dir}"``: the mem reference names its current project after that folder."""
    descriptor = load_descriptor(SHIPPED, every_settings())
    assert descriptor.cwd == reference_descriptor("mem").cwd == "{work_dir}"
    target = LaunchedTarget(descriptor, Workspace(tmp_path, None))
    assert target.fill(descriptor.cwd) == str(tmp_path / "work")


def test_a_working_folder_that_is_no_folder_stops_the_run_with_exit_code_2(
    tmp_path: Path,
) -> None:
    text = SHIPPED.read_text(encoding="utf-8").replace('"{work_dir}"', '"{state_dir}/missing"')
    path = tmp_path / "missing.toml"
    path.write_text(text, encoding="utf-8")
    report = tmp_path / "report"
    result = CliRunner().invoke(main, ["run", "--target", str(path), "--report-dir", str(report)])
    assert result.exit_code == 2, result.output
    assert "missing (server.cwd) is no folder" in result.output


def test_a_stdio_command_keeps_a_mem_servers_memories_in_the_run(tmp_path: Path) -> None:
    """``--stdio "engram mcp"``: Engram's data folder is the run's state folder, never the
    user's own store."""
    descriptor = stdio_descriptor("engram mcp", every_settings())
    target = LaunchedTarget(descriptor, Workspace(tmp_path, None))
    assert target._env()["ENGRAM_DATA_DIR"] == str(tmp_path / "state")
    assert descriptor.cwd is None


def test_the_shipped_http_descriptor_runs_the_reference_over_http(tmp_path: Path) -> None:
    shipped = REPO_ROOT / "targets" / "mem-reference-http.toml"
    report = tmp_path / "report"
    arguments = ["run", "--target", str(shipped), "--only", "SAVE-001", "--report-dir", str(report)]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert data["target"]["transport"] == "http"
    assert [(rule["id"], rule["verdict"]) for rule in data["rules"]] == [("SAVE-001", "pass")]
