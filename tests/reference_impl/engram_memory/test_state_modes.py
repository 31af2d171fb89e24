"""The modes of the state at rest (issue 12, finding 7): the state folder is 0700 and its files
0600 whatever the umask; a folder or master key that others can read is refused at start, in
one line, exit 2; the master key may live outside the state folder; a new key is written whole
or not at all."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from engram_conformance.reference_impl.at_rest import UnsafeState, private_file
from engram_conformance.reference_impl.cli import main
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.sealing import MASTER_KEY_FILE, Sealer
from engram_conformance.reference_impl.engram_memory.service import MemoryService


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A umask that keeps every bit: the server's modes must not depend on it."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.mark.usefixtures("open_umask")
def test_state_is_private_whatever_the_umask(tmp_path: Path) -> None:
    state = tmp_path / "deep" / "state"
    service = MemoryService(state, HostPolicy())  # its schema written: a WAL and its index
    modes = {path.name: mode(path) for path in state.iterdir()}  # the WAL goes at close
    service.close()
    assert mode(state) == 0o700
    assert {MASTER_KEY_FILE, "memory.sqlite3", "memory.sqlite3-wal"} <= set(modes)
    assert modes == dict.fromkeys(modes, 0o600)


@pytest.mark.parametrize("shared", [0o755, 0o750, 0o701])
def test_a_state_folder_others_can_use_is_refused(tmp_path: Path, shared: int) -> None:
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(shared)
    with pytest.raises(UnsafeState, match=rf"the state folder {state} can be used by others"):
        MemoryService(state, HostPolicy())
    assert list(state.iterdir()) == []  # nothing was written into it


@pytest.mark.parametrize("shared", [0o644, 0o640, 0o604])
def test_a_master_key_others_can_read_is_refused(tmp_path: Path, shared: int) -> None:
    Sealer.in_folder(tmp_path)
    key = tmp_path / MASTER_KEY_FILE
    key.chmod(shared)
    with pytest.raises(UnsafeState, match=r"the master key .* can be used by others"):
        Sealer.in_folder(tmp_path)


def test_the_master_key_can_live_outside_the_state_folder(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    key = keys / "engram.key"
    service = MemoryService(tmp_path / "state", HostPolicy(), key_file=key)
    service.close()
    assert mode(key) == 0o600 and len(key.read_bytes()) == 32
    assert not (tmp_path / "state" / MASTER_KEY_FILE).exists()
    sealed = Sealer.in_folder(tmp_path / "state", key).seal("cand_1", b"text")
    assert Sealer.in_folder(tmp_path / "elsewhere", key).open("cand_1", sealed) == b"text"


def test_a_new_key_leaves_no_temporary_file(tmp_path: Path) -> None:
    Sealer.in_folder(tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == [MASTER_KEY_FILE]


def test_serve_refuses_a_shared_key_in_one_line(
    tmp_path: Path, host_key_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    MemoryService(state, HostPolicy()).close()
    (state / MASTER_KEY_FILE).chmod(0o644)
    argv = ["serve", "--state-dir", str(state), "--host-public-key", str(host_key_file)]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("engram-reference: the master key ")
    assert "(mode 0644); refused: `chmod 600 " in line


@pytest.mark.parametrize("side", ["", "-wal", "-shm"])
def test_a_database_copied_in_readable_by_others_is_made_private(tmp_path: Path, side: str) -> None:
    """Attack round 5: a mem.db of mode 0644 was accepted, and SQLite made its WAL 0644 too."""
    database = tmp_path / "mem.db"
    database.touch()
    shared = database.with_name(database.name + side)
    shared.touch(exist_ok=True)
    shared.chmod(0o644)
    private_file(database)
    assert mode(shared) == 0o600 and mode(database) == 0o600
