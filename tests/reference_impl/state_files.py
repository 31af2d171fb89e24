"""What the files of a reference's state folder hold, read as raw bytes: the proof that
erased text is gone from the database, its WAL and its shared memory alike."""

from __future__ import annotations

from pathlib import Path


def holding(state_dir: Path, tokens: tuple[str, ...]) -> dict[str, list[str]]:
    """Token -> the names of the state folder's files whose raw bytes hold it."""
    contents = {path.name: path.read_bytes() for path in state_dir.iterdir() if path.is_file()}
    found = {token: [name for name, data in contents.items() if token.encode() in data]
             for token in tokens}  # fmt: skip
    return {token: names for token, names in found.items() if names}
