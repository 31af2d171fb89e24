"""The campaign's example database keeps no empty example (``fuzz_database``), nor does the folder
of a run's own searches (``bounded_search.quiet_settings``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.bounded_search import quiet_settings
from engram_conformance.conformance.fuzz_database import is_redis, opened


@pytest.mark.parametrize("kept_by", ["a campaign", "a run"])
def test_an_empty_example_is_never_kept_and_others_are(tmp_path: Path, kept_by: str) -> None:
    folder = tmp_path / "db"
    database = opened(str(folder)) if kept_by == "a campaign" else quiet_settings(folder).database
    assert database is not None
    database.save(b"key", b"")
    database.save(b"key", b"\x00A\x01")
    assert list(database.fetch(b"key")) == [b"\x00A\x01"]
    database.move(b"key", b"elsewhere", b"\x00A\x01")
    assert list(database.fetch(b"elsewhere")) == [b"\x00A\x01"]
    assert list(database.fetch(b"key")) == []


def test_redis_urls_are_told_from_folders() -> None:
    assert is_redis("redis://127.0.0.1:6379/0")
    assert is_redis("rediss://fuzz-db:6380/1")
    assert not is_redis("engram-conformance-fuzz/database")
    assert not is_redis("/var/cache/fuzz")
