"""Issue 23, round 4: every file the references trust at start is their user's own. A master
key, a token file, a WAL another user owns (in the state folder, or named by an option) and a
host public key another user owns or others may write are refused at start, before any is
read."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from engram_conformance.reference_impl.at_rest import (
    UnsafeState,
    private_file,
    private_folder,
    secret_file,
    trusted_file,
)

#: as if the files belonged to another user: the check compares with the running user's id
Foreign = Callable[[], None]


@pytest.fixture
def foreign(monkeypatch: pytest.MonkeyPatch) -> Foreign:
    """Make the running user another than the files' owner (no root needed)."""
    owner = os.geteuid()
    return lambda: monkeypatch.setattr(os, "geteuid", lambda: owner + 1)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root gives a file to another user")
@pytest.mark.parametrize("name", ["master.key", "http.token", "mem.db-wal", "records.db-shm"])
def test_a_state_folder_holding_another_user_s_file_is_refused(tmp_path: Path, name: str) -> None:
    state = private_folder(tmp_path / "state")
    planted = state / name
    planted.write_bytes(b"x")
    os.chown(planted, 4242, 4242)
    with pytest.raises(UnsafeState, match=f"the state file {planted} belongs to another user"):
        private_folder(state)


@pytest.mark.parametrize("what", ["master key", "token file"])
def test_a_secret_another_user_owns_is_refused(tmp_path: Path, foreign: Foreign, what: str) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"k" * 32)
    secret.chmod(0o600)
    foreign()
    with pytest.raises(UnsafeState, match=f"the {what} {secret} belongs to another user"):
        secret_file(secret, what)


def test_a_host_key_another_user_owns_is_refused(tmp_path: Path, foreign: Foreign) -> None:
    key = tmp_path / "host.pem"
    key.write_text("-----BEGIN PUBLIC KEY-----\n")
    foreign()
    with pytest.raises(UnsafeState, match="belongs to another user"):
        trusted_file(key, "host public key")


def test_a_host_key_others_may_write_is_refused(tmp_path: Path) -> None:
    key = tmp_path / "host.pem"
    key.write_text("-----BEGIN PUBLIC KEY-----\n")
    key.chmod(0o666)
    with pytest.raises(UnsafeState, match="can be written by others"):
        trusted_file(key, "host public key")
    key.chmod(0o644)  # readable by all is fine: it is a public key
    trusted_file(key, "host public key")


@pytest.mark.parametrize("check", [secret_file, trusted_file], ids=["a secret", "a trusted file"])
@pytest.mark.parametrize("kind", ["a FIFO", "a folder", "a link to a FIFO"])
def test_what_is_no_regular_file_is_refused_before_it_is_read(
    tmp_path: Path, check: Callable[[Path, str], None], kind: str
) -> None:
    """Attack round 6: an http.token that was a FIFO held `serve` at its start, saying
    nothing (reading it waits for a writer)."""
    planted = tmp_path / "planted"
    if kind == "a folder":
        planted.mkdir(mode=0o700)
    else:
        fifo = tmp_path / "fifo" if kind == "a link to a FIFO" else planted
        os.mkfifo(fifo, 0o600)
        if fifo != planted:
            planted.symlink_to(fifo)
    with pytest.raises(UnsafeState, match=f"the token file {planted} is not a regular file"):
        check(planted, "token file")


@pytest.mark.parametrize("name", ["mem.db", "mem.db-wal"])
def test_a_database_or_side_file_that_is_a_link_is_refused(tmp_path: Path, name: str) -> None:
    """Attack round 6: a mem.db linked to a file outside the state folder was used, and its
    target made 0600."""
    outside = tmp_path / "outside.db"
    outside.write_bytes(b"")
    outside.chmod(0o644)
    state = private_folder(tmp_path / "state")
    (state / "mem.db").write_bytes(b"")
    (state / name).unlink(missing_ok=True)
    (state / name).symlink_to(outside)
    with pytest.raises(UnsafeState, match=f"the state file {state / name} is a link"):
        private_file(state / "mem.db")
    assert outside.stat().st_mode & 0o777 == 0o644
