"""Scopes are independent (issue 12, findings 2 and 3): what one scope sees of search and of
its counters depends on its own history only, however much other scopes hold or write."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.cli import main
from engram_conformance.reference_impl.engram_memory.store import (
    DATABASE_FILE,
    EarlierSchema,
    Store,
)

from .service_fixtures import (
    SCOPE_A,
    SCOPE_OTHER_TENANT,
    SCOPE_OTHER_WORKSPACE,
    Binding,
    Harness,
    capture_arguments,
    value_of,
)

OWN_TEXTS = (
    "quartz ledger",
    "quartz ledger quartz",
    "quartz orbit and a longer tail of words",
    "ledger only",
)
#: Texts of other scopes with the same words, of other lengths, so every BM25 statistic moves.
FOREIGN_TEXT = "quartz {n} " + "filler " * 7


def _fill(harness: Harness, binding: Binding, count: int) -> None:
    for number in range(count):
        harness.accepted(binding, text=FOREIGN_TEXT.format(n=number) * (1 + number % 3))


def _search(harness: Harness) -> dict[str, Any]:
    """The whole answer of a search that has a second page (the clock does not move: every
    field, issued_at and digests too, depends on the stored records only)."""
    return value_of(harness.search("quartz ledger", limit=2))


def test_search_answers_the_same_whatever_other_scopes_hold(harness: Harness) -> None:
    for text in OWN_TEXTS:
        harness.accepted(text=text)
    before = _search(harness)
    assert "next_page_cursor" in before
    assert before["rank_receipt"]["candidate_count"] == len(OWN_TEXTS)
    _fill(harness, SCOPE_OTHER_TENANT, 12)
    _fill(harness, SCOPE_OTHER_WORKSPACE, 12)
    assert _search(harness) == before
    second = value_of(
        harness.search("quartz ledger", limit=2, page_cursor=before["next_page_cursor"])
    )
    assert [packet["rank"] for packet in second["records"]] == [3, 4]


def test_a_scope_that_never_wrote_matches_nothing(harness: Harness) -> None:
    _fill(harness, SCOPE_OTHER_TENANT, 2)
    answer = _search(harness)
    assert (answer["records"], answer["rank_receipt"]["candidate_count"]) == ([], 0)


def _history(harness: Harness, binding: Binding, between: Any) -> list[str]:
    """Every counter value a scope is shown along one fixed sequence of calls; ``between``
    runs after each call (another scope's writes, or nothing)."""
    seen = []
    captured = value_of(harness.capture(capture_arguments(key=harness.key()), binding))
    seen.append(captured["cursor"])
    between()
    outcome = value_of(harness.admit(captured["candidate_id"], binding=binding))["outcome"]
    seen.append(outcome["cursor"])
    between()
    got = value_of(harness.get(outcome["record_id"], binding))
    seen += [got["record"]["recorded_cursor"], got["read_receipt"]["system_as_of"]]
    between()
    receipt = value_of(harness.forget(outcome["record_id"], binding=binding))["receipt"]
    seen += [receipt["cursor"], receipt["event_id"]]
    return seen


def test_counters_follow_the_scope_s_own_history(harness: Harness) -> None:
    alone = _history(harness, replace(SCOPE_A, tenant="tenant-alone"), lambda: None)

    def foreign_writes() -> None:
        harness.accepted(SCOPE_OTHER_TENANT, key=harness.key("foreign"))

    beside = _history(harness, replace(SCOPE_A, tenant="tenant-beside"), foreign_writes)
    assert alone == beside == ["1", "2", "2", "2", "3", "evt_3"]


def test_two_scopes_may_hold_the_same_record(harness: Harness) -> None:
    """Per-scope cursors make equal records of equal payloads in two scopes: each keeps its own."""
    record = harness.accepted(SCOPE_A)
    assert harness.accepted(SCOPE_OTHER_TENANT) == record
    value_of(harness.forget(record, binding=SCOPE_OTHER_TENANT))
    assert harness.record_state(record, SCOPE_A) == "accepted_current"
    assert value_of(harness.get(record))["record"]["record_id"] == record
    assert harness.found_ids("FTS5") == [record]
    assert harness.found_ids("FTS5", SCOPE_OTHER_TENANT) == []


def _earlier_state(folder: Path) -> None:
    folder.mkdir(mode=0o700)
    database = folder / DATABASE_FILE
    database.touch(mode=0o600)
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE VIRTUAL TABLE records_text USING fts5 (text)")
    connection.close()


def test_an_earlier_version_s_state_folder_is_refused(tmp_path: Path) -> None:
    _earlier_state(tmp_path / "state")
    with pytest.raises(EarlierSchema, match="earlier version"):
        Store(tmp_path / "state")


def test_serve_refuses_it_in_one_line(
    tmp_path: Path, host_key_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _earlier_state(tmp_path / "state")
    argv = [
        "serve",
        "--state-dir",
        str(tmp_path / "state"),
        "--host-public-key",
        str(host_key_file),
    ]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    [line] = capsys.readouterr().err.splitlines()
    assert exited.value.code == 2
    assert "earlier version" in line
    assert "does not migrate" in line
