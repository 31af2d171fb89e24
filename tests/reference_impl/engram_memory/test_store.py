"""The reference SQLite store: atomic transactions, scoped reads, the lexical index."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.envelope import Refusal
from engram_conformance.reference_impl.engram_memory.records import build_record, searchable_text
from engram_conformance.reference_impl.engram_memory.sealing import Sealed
from engram_conformance.reference_impl.engram_memory.store import (
    DATABASE_FILE,
    LAYOUT,
    Candidate,
    Reservation,
    Store,
)

from .service_fixtures import START_MS, capture_arguments

SCOPE = ("tenant-a", "workspace-a")
OTHER = ("tenant-a", "workspace-b")
SEALED = Sealed(b"n" * 12, b"ciphertext", b"w" * 60)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(tmp_path)
    yield store
    store.close()


def _count(store: Store, table: str) -> int:
    return store.connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def _candidate(candidate_id: str, cursor: int = 1) -> Candidate:
    return Candidate(candidate_id, "pending", "sha256:" + "1" * 64, cursor, SEALED)


def _record(store: Store, scope: tuple[str, str], text: str, **kw: Any) -> dict[str, Any]:
    arguments = capture_arguments(text=text, **kw)
    with store.write():
        cursor = store.append_event(scope, "accept", "cand", START_MS)
        record = build_record(arguments["payload"], arguments["evidence"], cursor, START_MS)
        store.insert_record(scope, record, searchable_text(record), None)
    return record


def test_write_commits_when_the_block_ends(store: Store, tmp_path: Path) -> None:
    with store.write():
        store.append_event(SCOPE, "capture", "cand_1", START_MS)
        store.insert_candidate(SCOPE, _candidate("cand_1"), SEALED)
    reader = sqlite3.connect(tmp_path / DATABASE_FILE)
    try:
        assert reader.execute("SELECT COUNT(*) FROM candidates").fetchone()[0] == 1
        assert reader.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1
    finally:
        reader.close()


@pytest.mark.parametrize("error", [Refusal("NOT_FOUND"), RuntimeError("boom"), KeyboardInterrupt()])
def test_write_rolls_back_every_row_when_the_block_raises(
    store: Store, error: BaseException
) -> None:
    """A call's rows are all or nothing: an exception (a refusal too) undoes the block."""
    with pytest.raises(type(error)), store.write():
        store.append_event(SCOPE, "capture", "cand_1", START_MS)
        store.insert_candidate(SCOPE, _candidate("cand_1"), SEALED)
        store.reserve(SCOPE, "p", "key-0000000000001", Reservation("t", "d", {"v": 1}))
        raise error
    for table in ("events", "candidates", "idempotency"):
        assert _count(store, table) == 0
    assert not store.connection.in_transaction


def test_cursors_stay_dense_after_a_rollback(store: Store) -> None:
    with store.write():
        assert store.append_event(SCOPE, "capture", "a", START_MS) == 1
    with pytest.raises(RuntimeError), store.write():
        assert store.append_event(SCOPE, "capture", "b", START_MS) == 2
        raise RuntimeError
    with store.write():
        assert store.append_event(SCOPE, "capture", "c", START_MS) == 2
    assert store.high_water(SCOPE) == 2
    assert store.high_water(OTHER) == 0


def test_reservations_are_per_scope_and_principal(store: Store) -> None:
    reservation = Reservation("engram_memory_capture", "sha256:" + "2" * 64, {"status": "é"})
    with store.write():
        store.reserve(SCOPE, "principal-a", "key-0000000000001", reservation)
    assert store.reservation(SCOPE, "principal-a", "key-0000000000001") == reservation
    assert store.reservation(SCOPE, "principal-b", "key-0000000000001") is None
    assert store.reservation(OTHER, "principal-a", "key-0000000000001") is None
    assert store.reservation(SCOPE, "principal-a", "key-0000000000002") is None
    with pytest.raises(sqlite3.IntegrityError), store.write():
        store.reserve(SCOPE, "principal-a", "key-0000000000001", reservation)


def test_candidates_are_read_in_their_scope_only(store: Store) -> None:
    with store.write():
        store.insert_candidate(SCOPE, _candidate("cand_1"), SEALED)
    found = store.candidate(SCOPE, "cand_1")
    assert found == _candidate("cand_1")
    assert store.candidate(OTHER, "cand_1") is None
    assert store.candidate(SCOPE, "cand_2") is None


def test_ending_a_candidate_destroys_its_sealed_material(store: Store) -> None:
    with store.write():
        store.insert_candidate(SCOPE, _candidate("cand_1"), SEALED)
        store.end_candidate("cand_1", "withdrawn")
    ended = store.candidate(SCOPE, "cand_1")
    assert ended is not None
    assert (ended.state, ended.sealed) == ("withdrawn", None)
    row = store.connection.execute("SELECT nonce, ciphertext, wrapped_key FROM candidates")
    assert row.fetchone() == (None, None, None)


def test_records_and_the_lexical_index(store: Store) -> None:
    record = _record(store, SCOPE, "indexed lexical words")
    _record(store, OTHER, "other lexical words")
    stored = store.record(SCOPE, record["record_id"])
    assert stored is not None
    assert (stored.state, stored.record) == ("accepted_current", record)
    assert store.record(OTHER, record["record_id"]) is None
    matches = store.matching(SCOPE, '"lexical"', START_MS, 10)
    assert [record_id for record_id, _ in matches] == [record["record_id"]]
    assert matches[0][1] > 0, "scores are reported higher-is-better"
    assert store.records_by_id(SCOPE, [record["record_id"]]) == {record["record_id"]: record}
    assert store.records_by_id(OTHER, [record["record_id"]]) == {}


def test_tombstone_erases_the_body_and_the_index_entry(store: Store) -> None:
    record = _record(store, SCOPE, "doomed words")
    stored = store.record(SCOPE, record["record_id"])
    assert stored is not None
    assert not store.tombstoned_payload(SCOPE, record["payload_digest"])
    with store.write():
        store.tombstone(stored)
    after = store.record(SCOPE, record["record_id"])
    assert after is not None
    assert (after.state, after.record) == ("tombstoned", None)
    assert store.matching(SCOPE, '"doomed"', START_MS, 10) == []
    assert _count(store, "records_text_1") == 0  # the scope's own index
    assert _count(store, "current_records") == 0
    assert store.tombstoned_payload(SCOPE, record["payload_digest"])
    assert not store.tombstoned_payload(OTHER, record["payload_digest"])


def test_matching_honours_valid_time_and_expiry(store: Store) -> None:
    future = _record(store, SCOPE, "timed words", t=START_MS + 10)
    ended = _record(store, SCOPE, "timed words", t=START_MS - 10, t_end=START_MS - 1)
    with store.write():
        cursor = store.append_event(SCOPE, "accept", "cand", START_MS)
        arguments = capture_arguments(text="timed words")
        expiring = build_record(arguments["payload"], arguments["evidence"], cursor, START_MS)
        store.insert_record(SCOPE, expiring, searchable_text(expiring), START_MS + 5)
    current = _record(store, SCOPE, "timed words")

    def found(now: int) -> set[str]:
        return {record_id for record_id, _ in store.matching(SCOPE, '"timed"', now, 10)}

    assert found(START_MS) == {current["record_id"], expiring["record_id"]}
    assert found(START_MS + 5) == {current["record_id"]}
    assert found(START_MS + 10) == {current["record_id"], future["record_id"]}
    assert found(START_MS - 1) == {current["record_id"], ended["record_id"], expiring["record_id"]}


def test_matching_caps_the_candidates(store: Store) -> None:
    for _ in range(5):
        _record(store, SCOPE, "capped words")
    assert len(store.matching(SCOPE, '"capped"', START_MS, 3)) == 3


def test_the_store_persists_across_reopening(tmp_path: Path) -> None:
    first = Store(tmp_path)
    with first.write():
        first.insert_candidate(SCOPE, _candidate("cand_1"), SEALED)
    first.close()
    second = Store(tmp_path)
    try:
        assert second.candidate(SCOPE, "cand_1") == _candidate("cand_1")
        mode = second.connection.execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"
    finally:
        second.close()


def test_matching_finds_a_scope_s_records_behind_better_matches_of_other_scopes(
    store: Store,
) -> None:
    """The index is shared: another scope's many better matches never hide this scope's."""
    for _ in range(12):
        _record(store, OTHER, "needle needle needle")
    mine = {_record(store, SCOPE, f"needle among {n} other words")["record_id"] for n in range(3)}
    found = store.matching(SCOPE, '"needle"', START_MS, 2)
    assert len(found) == 2
    assert {record_id for record_id, _ in found} <= mine
    every = store.matching(SCOPE, '"needle"', START_MS, 50)
    assert {record_id for record_id, _ in every} == mine
    assert found == every[:2]


def _exact(store: Store, match: str, now: int, cap: int) -> list[tuple[str, float]]:
    """Every eligible match of SCOPE ranked at once, best first, ties by record_id."""
    table = f"records_text_{store._scope_no(SCOPE)}"
    rows = store.connection.execute(
        f"SELECT r.record_id, bm25({table}) FROM {table} JOIN records r"
        f" ON r.rowid = {table}.rowid WHERE {table} MATCH ? AND r.tenant = ? AND r.workspace = ?"
        " AND r.state = 'accepted_current' AND r.valid_t <= ?"
        " AND (r.valid_t_end IS NULL OR ? <= r.valid_t_end)",
        (match, *SCOPE, now, now),
    ).fetchall()
    ordered = sorted(rows, key=lambda row: (row[1], row[0]))[:cap]
    return [(record_id, -rank) for record_id, rank in ordered]


def test_matching_is_the_exact_ranking(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever path ``matching`` takes (ranked matches looked up a batch at a time, stopping
    early; every match ranked; the exact query), it answers what ranking every eligible match
    of the scope at once answers: the same ids, scores and order, ties included. Small batches
    make the early stops happen on a small store; texts repeat, so scores tie; a third of the
    records are not current or are forgotten, so the fast path falls back too."""
    monkeypatch.setattr("engram_conformance.reference_impl.engram_memory.store._BATCH", 4)
    words = ["alpha", "beta", "gamma", "delta", "omega"]
    for number in range(90):
        text = " ".join(words[(number * k) % 5] for k in range(1, 2 + number % 4))
        kind = number % 6
        if kind == 4:
            _record(store, SCOPE, text, t=START_MS + 10)  # not yet valid
        elif kind == 5:
            _record(store, SCOPE, text, t=START_MS - 10, t_end=START_MS - 1)  # ended
        else:
            record = _record(store, SCOPE, text)
            if number % 9 == 0:
                with store.write():
                    stored = store.record(SCOPE, record["record_id"])
                    assert stored is not None
                    store.tombstone(stored)
        _record(store, OTHER, text)
    queries = [f'"{word}"' for word in words] + ['"alpha" OR "omega"', '"beta" OR "gamma"']
    for match in queries:
        for cap in (1, 2, 3, 5, 8, 13, 40, 100):
            exact = _exact(store, match, START_MS, cap)
            assert store.matching(SCOPE, match, START_MS, cap) == exact, (match, cap)


def test_a_folder_of_the_layout_before_current_records_answers_the_same(tmp_path: Path) -> None:
    """A folder written before ``current_records`` (layout 0: the same tables but that one,
    ``user_version`` 0) gets it filled at open with its current records only, once, and
    matches what it matched when written."""
    store = Store(tmp_path)
    kept = [_record(store, SCOPE, f"layout words {n}")["record_id"] for n in range(3)]
    _record(store, SCOPE, "layout words ended", t=START_MS - 10, t_end=START_MS - 1)
    _record(store, OTHER, "layout words elsewhere")
    doomed = store.record(SCOPE, _record(store, SCOPE, "layout words doomed")["record_id"])
    assert doomed is not None
    with store.write():
        store.tombstone(doomed)
    written = store.matching(SCOPE, '"layout"', START_MS, 10)
    assert sorted(record_id for record_id, _ in written) == sorted(kept)
    rows = store.connection.execute("SELECT * FROM current_records ORDER BY 1").fetchall()
    store.connection.execute("DROP TABLE current_records")
    store.connection.execute("PRAGMA user_version = 0")
    store.close()
    for _ in range(2):  # the second opening finds the layout done
        reopened = Store(tmp_path)
        try:
            assert reopened.connection.execute("PRAGMA user_version").fetchone()[0] == LAYOUT
            filled = reopened.connection.execute("SELECT * FROM current_records ORDER BY 1")
            assert filled.fetchall() == rows
            assert reopened.matching(SCOPE, '"layout"', START_MS, 10) == written
        finally:
            reopened.close()
