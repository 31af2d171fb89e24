"""Fixtures of the mem spec's tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.spec.mem import PACKAGED_ROOT, MemSpec, load

from ...conftest import copy_spec_folder

SEEDS = Path(__file__).resolve().parents[4] / "shared" / "seeds"


@pytest.fixture(scope="session")
def mem_spec() -> MemSpec:
    return load()


@pytest.fixture
def mem_spec_copy(tmp_path: Path) -> Path:
    """A private copy of the packaged mem spec folder, for tests that break a file."""
    return copy_spec_folder(PACKAGED_ROOT, tmp_path / "mem")


def seed_text() -> str | None:
    """Seed 003's text, when the shared seeds folder is beside the repository."""
    found = sorted(SEEDS.glob("003_*.txt"))
    return found[0].read_text(encoding="utf-8") if found else None
