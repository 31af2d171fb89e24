"""Shared fixtures of the kit's own tests."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from engram_conformance.spec.engram_memory import PACKAGED_ROOT, Spec, load

REPO_ROOT = Path(__file__).resolve().parent.parent


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject's addopts): two workers per core. Much of the suite waits, not
    computes (servers started as processes, calls left unanswered until their time-out, windows
    waited out), so a second worker per core fills the waits of the first."""
    return 2 * len(os.sched_getaffinity(0))


@pytest.fixture(scope="session")
def spec() -> Spec:
    return load()


@pytest.fixture
def spec_copy(tmp_path: Path) -> Path:
    """A private copy of the packaged spec folder, for tests that break a file."""
    return copy_spec_folder(PACKAGED_ROOT, tmp_path / "spec")


def copy_spec_folder(root: Path, target: Path) -> Path:
    """A copy of the spec folder ``root`` at ``target``, without its Python modules."""
    shutil.copytree(root, target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target
