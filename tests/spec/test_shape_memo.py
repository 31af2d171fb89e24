"""A spec folder's shape found clean is remembered (``loaded.LoadedSpec.from_folder``): the same
documents are not checked again by the next process, while any change to them is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engram_conformance.spec.engram_memory import Spec, SpecFileError, _shape
from engram_conformance.spec.mem import PACKAGED_ROOT as MEM_ROOT
from engram_conformance.spec.mem import MemSpec

from ..conftest import copy_spec_folder


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user cache folder of the test's own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "engram-conformance" / "spec-shape"


def _unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any check of the engram-memory shape fail the test (the source is left unchanged,
    so the remembered digest still matches)."""

    def checked(*_: object) -> None:
        raise AssertionError("the shape was checked again")

    monkeypatch.setattr(_shape, "schema_errors", checked)


def test_a_clean_shape_is_checked_once(
    spec_copy: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Spec.from_folder(spec_copy)
    assert len(list(cache.iterdir())) == 1
    _unchecked(monkeypatch)
    assert Spec.from_folder(spec_copy).tools


def test_a_changed_document_is_checked_afresh(spec_copy: Path, cache: Path) -> None:
    Spec.from_folder(spec_copy)
    rules = spec_copy / "rules.json"
    document = json.loads(rules.read_text(encoding="utf-8"))
    document["rules"][0]["level"] = "maybe"
    rules.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SpecFileError) as raised:
        Spec.from_folder(spec_copy)
    assert (str(raised.value.path), raised.value.pointer) == ("rules.json", "/rules/0/level")
    assert len(list(cache.iterdir())) == 1


def test_each_contract_remembers_its_own(tmp_path: Path, cache: Path) -> None:
    MemSpec.from_folder(copy_spec_folder(MEM_ROOT, tmp_path / "mem"))
    assert len(list(cache.iterdir())) == 1


def test_an_unwritable_cache_only_costs_time(
    spec_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert Spec.from_folder(spec_copy).tools
    assert Spec.from_folder(spec_copy).tools
