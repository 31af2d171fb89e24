"""A run keeps Hypothesis' own files in its report folder, never in the current folder (which
may be the server's working folder, whose contents a check reads, or the user's own)."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.execution import hypothesis_home
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.configuration import storage_directory


def test_hypothesis_writes_in_the_run_s_folder_and_then_where_it_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    working = tmp_path / "working"
    working.mkdir()
    monkeypatch.chdir(working)
    before = storage_directory(intent_to_write=False).home_directory

    @settings(max_examples=5, database=None)
    @given(st.integers())
    def explore(number: int) -> None:
        assert isinstance(number, int)

    with hypothesis_home(tmp_path / "report" / "hypothesis"):
        assert storage_directory("x").path == tmp_path / "report" / "hypothesis" / "x"
        explore()
    assert list(working.iterdir()) == []
    assert storage_directory(intent_to_write=False).home_directory == before
