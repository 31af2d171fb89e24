"""Snapshot files: rendered text pinned under tests/reports/snapshots/.

Set ``UPDATE_SNAPSHOTS=1`` to rewrite them after an intended change, then review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

FOLDER = Path(__file__).with_name("snapshots")


def assert_snapshot(text: str, name: str) -> None:
    path = FOLDER / name
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8", newline="\n")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed (UPDATE_SNAPSHOTS=1 rewrites)"
