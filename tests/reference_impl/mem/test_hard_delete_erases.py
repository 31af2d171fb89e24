"""A hard delete erases (issue 23, item 4): once mem_delete answers "permanently deleted", no
byte of the memory's text is in any file of the state folder (database, WAL, shared memory),
while the server runs and after it closes, whatever the SQLite build's ``secure_delete``
default: the store turns it on itself, merges the FTS5 index so that no segment keeps the
terms, and checkpoints and truncates the WAL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem import store

from ..state_files import holding
from .inprocess import ok, service

DOOMED = ("zyxpurgedalpha", "zyxpurgedbeta", "zyxpurgedgamma")
KEPT = "zyxkeptdelta"


@pytest.fixture(autouse=True)
def build_without_secure_delete(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every connection the store opens starts with ``secure_delete`` off, as on a build whose
    default does not wipe freed bytes (this machine's turns it on)."""
    connect = sqlite3.connect

    def connected(*args: object, **kwargs: object) -> sqlite3.Connection:
        connection = connect(*args, **kwargs)  # type: ignore[arg-type]
        connection.execute("PRAGMA secure_delete=OFF")
        return connection

    monkeypatch.setattr(store.sqlite3, "connect", connected)


def saved_id(answer: str) -> int:
    return int(answer.rsplit("ID: ", 1)[1])


def test_a_hard_delete_leaves_no_byte_of_the_text_in_any_state_file(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with service(tmp_path) as mem:
        for number in range(6):  # each save its own transaction: several index segments
            ok(mem, "mem_save", title=f"{KEPT} before {number}", content=f"neighbour {number}")
        doomed = saved_id(
            ok(mem, "mem_save", title=f"Doomed {DOOMED[0]}", content=" ".join(DOOMED[1:]))
        )
        ok(mem, "mem_update", id=doomed, content=f"{DOOMED[1]} {DOOMED[2]} revised")
        for number in range(3):
            ok(mem, "mem_save", title=f"{KEPT} after {number}", content=f"later {number}")
        assert set(holding(state, DOOMED)) == set(DOOMED), "the control: the text is on disk"
        ok(mem, "mem_delete", id=doomed, hard_delete=True)
        assert holding(state, DOOMED) == {}
        assert "Found 9 memories" in ok(mem, "mem_search", query=KEPT, limit=20)
    assert holding(state, DOOMED) == {}


def test_a_soft_delete_keeps_the_text_until_the_hard_delete(tmp_path: Path) -> None:
    """The seed: a soft-deleted memory is marked, not erased."""
    state = tmp_path / "state"
    with service(tmp_path) as mem:
        doomed = saved_id(ok(mem, "mem_save", title=DOOMED[0], content=DOOMED[1]))
        ok(mem, "mem_delete", id=doomed)
        assert set(holding(state, DOOMED[:2])) == set(DOOMED[:2])
        ok(mem, "mem_delete", id=doomed, hard=True)
        assert holding(state, DOOMED[:2]) == {}
