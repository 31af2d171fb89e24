"""``engram-reference serve --contract mem``: its options, and the other contract's refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..test_cli import Run

MEM = ("serve", "--contract", "mem")


def test_a_first_contract_option_is_refused_for_mem(refused: Run, tmp_path: Path) -> None:
    line = refused(*MEM, "--state-dir", tmp_path / "s", "--host-public-key", __file__)
    assert line == (
        "engram-reference: --host-public-key: not an option of the mem contract's server"
    )


def test_a_mem_option_is_refused_for_the_first_contract(
    refused: Run,
    tmp_path: Path,
    host_key_file: Path,
) -> None:
    line = refused(
        "serve",
        "--state-dir",
        tmp_path / "s",
        "--host-public-key",
        host_key_file,
        "--dedupe-window-s",
        "1",
    )
    assert "--dedupe-window-s: not an option of the engram-memory contract's server" in line


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--dedupe-window-s", "-1"), "--dedupe-window-s"),
        (("--dedupe-window-s", "nan"), "--dedupe-window-s"),
        (("--dedupe-window-s", "soon"), "--dedupe-window-s"),
        (("--max-learnings", "0"), "--max-learnings"),
        (("--project", "   "), "--project"),
    ],
)
def test_bad_mem_options(
    refused: Run,
    tmp_path: Path,
    options: tuple[str, ...],
    said: str,
) -> None:
    assert said in refused(*MEM, "--state-dir", tmp_path / "s", *options)


def test_a_state_folder_that_cannot_be_created(refused: Run, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert "state" in refused(*MEM, "--state-dir", blocker / "state")


def test_the_database_is_private(refused: Run, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    assert "can be used by others" in refused(*MEM, "--state-dir", shared)


def test_a_state_folder_of_another_user_is_refused(
    refused: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23, item 7: its owner could read the memories, or widen the folder's mode."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    owner = state.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)  # the server runs as another user
    assert refused(*MEM, "--state-dir", state) == (
        f"engram-reference: the state folder {state} belongs to another user (uid {owner}, "
        f"not {owner + 1}); refused: use a state folder of your own"
    )
    assert list(state.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root gives a file to another user")
def test_a_database_of_another_user_is_refused(refused: Run, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    database = state / "mem.db"
    database.touch(mode=0o600)
    os.chown(database, 4242, 4242)
    line = refused(*MEM, "--state-dir", state)
    assert line == (
        f"engram-reference: the state file {database} belongs to another user (uid 4242, "
        "not 0); refused: use a state folder of your own"
    )
