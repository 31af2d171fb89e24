"""Shared fixtures of the kit's own tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from engram_conformance.spec.engram_memory import PACKAGED_ROOT, Spec, load

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def spec() -> Spec:
    return load()


@pytest.fixture
def spec_copy(tmp_path: Path) -> Path:
    """A private copy of the packaged spec folder, for tests that break a file."""
    target = tmp_path / "spec"
    shutil.copytree(PACKAGED_ROOT, target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target
