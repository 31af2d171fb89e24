"""What a server keeps where the harness can read it: the files the target descriptor lists under
``[state] files`` and which of them hold a word. Every contract's privacy and erasure checks
share them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .check_context import BaseContext


def holding(paths: Iterable[Path], markers: Iterable[str]) -> dict[str, list[str]]:
    """Marker -> the files among ``paths`` that hold its UTF-8 bytes (only markers found)."""
    contents = {}
    for path in paths:
        try:
            contents[str(path)] = path.read_bytes()
        except OSError:  # a file the server removed meanwhile holds nothing
            continue
    found = {m: [p for p, data in contents.items() if m.encode() in data] for m in markers}
    return {marker: holders for marker, holders in found.items() if holders}


def state_files(ctx: BaseContext) -> list[Path]:
    """The files the descriptor's ``[state] files`` match now ([] when it lists none)."""
    return ctx.state_files() if ctx.state_files is not None else []
