"""Fixtures of the mem spec's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from engram_conformance.spec.mem import PACKAGED_ROOT, MemSpec, load

SEEDS = Path(__file__).resolve().parents[4] / "shared" / "seeds"


@pytest.fixture(scope="session")
def mem_spec() -> MemSpec:
    return load()


@pytest.fixture
def mem_spec_copy(tmp_path: Path) -> Path:
    """A private copy of the packaged mem spec folder, for tests that break a file."""
    target = tmp_path / "mem"
    shutil.copytree(PACKAGED_ROOT, target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target


def seed_text() -> str | None:
    """Seed 003's text, when the shared seeds folder is beside the repository."""
    found = sorted(SEEDS.glob("003_*.txt"))
    return found[0].read_text(encoding="utf-8") if found else None
