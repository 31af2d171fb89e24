"""Forget erases (issue 12, finding 6): once forget answers projection_invalidation "complete",
no byte of the forgotten text is in any file of the state folder (database, WAL, shared memory),
while the server runs and after it closes; "pending" when the erasure could not be finished."""

from __future__ import annotations

import sqlite3

from engram_conformance.reference_impl.engram_memory.store import DATABASE_FILE

from ..state_files import holding
from .service_fixtures import Harness, value_of

FORGOTTEN = ("zyxforgottenalpha", "zyxforgottenbeta")
KEPT = "zyxkeptgamma"


def _scope_with_a_doomed_record(harness: Harness) -> str:
    """Several records, each admitted in its own transaction (so the index has several
    segments), one of them with the tokens to forget; the tokens are on disk (the control)."""
    for number in range(6):
        harness.accepted(text=f"{KEPT} neighbour {number}")
    doomed = harness.accepted(text=" ".join(FORGOTTEN), source_ref=f"source:{FORGOTTEN[0]}")
    for number in range(3):
        harness.accepted(text=f"{KEPT} later {number}")
    assert set(holding(harness.state_dir, FORGOTTEN)) == set(FORGOTTEN)
    return doomed


def test_forget_complete_leaves_no_token_in_any_state_file(harness: Harness) -> None:
    doomed = _scope_with_a_doomed_record(harness)
    answer = value_of(harness.forget(doomed))
    assert answer["projection_invalidation"] == "complete"
    assert holding(harness.state_dir, FORGOTTEN) == {}
    assert len(harness.found_ids(KEPT, limit=20)) == 9, "the other records stay searchable"
    harness.close()
    assert holding(harness.state_dir, FORGOTTEN) == {}


def test_forget_is_pending_while_a_reader_holds_the_old_pages(harness: Harness) -> None:
    """A reader of another connection, whose snapshot predates the forget, keeps the WAL from
    being checkpointed: the answer says "pending"; its replay, once the reader is gone, says
    "complete" and the tokens are gone."""
    doomed = _scope_with_a_doomed_record(harness)
    harness.service.store.connection.execute("PRAGMA busy_timeout = 50")
    reader = sqlite3.connect(harness.state_dir / DATABASE_FILE, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM records").fetchone()
        key = harness.key("forget")
        first = value_of(harness.forget(doomed, key=key))
        assert first["projection_invalidation"] == "pending"
        reader.execute("COMMIT")
    finally:
        reader.close()
    replay = value_of(harness.forget(doomed, key=key))
    assert (replay["replayed"], replay["receipt"]) == (True, first["receipt"])
    assert replay["projection_invalidation"] == "complete"
    assert holding(harness.state_dir, FORGOTTEN) == {}
