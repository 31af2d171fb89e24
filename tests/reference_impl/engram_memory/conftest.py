"""Fixtures of the engram-memory reference's in-process tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .service_fixtures import Harness, open_harness


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    """A reference service on a fresh state folder with a fake clock (service_fixtures)."""
    with open_harness(tmp_path / "state") as harness:
        yield harness
