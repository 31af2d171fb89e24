"""Markdown pieces both contracts' generated reference pages are built of."""

from __future__ import annotations

from typing import Any


def cell(text: Any) -> str:
    """``text`` as one table cell: pipes escaped, newlines as spaces."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    """A Markdown table's lines, then a blank line."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return [*lines, ""]
