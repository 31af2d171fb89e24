"""Which spec a run used: a digest of a spec folder's files, for the report's ``spec.digest``."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def spec_digest(root: Path, relatives: Iterable[str]) -> str:
    """sha256 over each file's relative path and bytes, in path order."""
    hasher = hashlib.sha256()
    for relative in sorted(relatives):
        hasher.update(relative.encode() + b"\0" + (root / relative).read_bytes())
    return "sha256:" + hasher.hexdigest()
