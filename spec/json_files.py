"""Read a spec folder's JSON files strictly, with errors that name the file and the place.

Shared by the contracts' ``_files`` modules: each names its own catalogues and globs, and reads
them with ``read_paths`` into a ``Documents`` of its own (a subclass that adds its selections).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class SpecFileError(Exception):
    """A spec file that cannot be used: the file, the JSON Pointer inside it, what is wrong."""

    path: Path
    pointer: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: at '{self.pointer}': {self.problem}"


@dataclass(frozen=True)
class Documents:
    """Every JSON document of one spec folder, parsed, keyed by its path relative to the root."""

    root: Path
    by_path: dict[str, Any]

    def catalogue(self, name: str) -> Any:
        return self.by_path[name]

    def metas(self) -> dict[str, Any]:
        return {p: d for p, d in self.by_path.items() if p.startswith("meta/")}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"duplicate key {duplicate!r}")
    return result


def read_json(path: Path, root: Path) -> Any:
    """Parse one file strictly: NaN and Infinity are refused, duplicate keys too."""
    relative = path.relative_to(root)
    try:
        text = path.read_text(encoding="utf-8")
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        problem = f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        raise SpecFileError(relative, "", problem) from error
    except (UnicodeDecodeError, ValueError, OSError) as error:
        raise SpecFileError(relative, "", f"cannot be read as JSON: {error}") from error


def read_paths(root: Path, names: Iterable[str], patterns: Iterable[str]) -> dict[str, Any]:
    """The files ``names`` (each must exist) and those the glob ``patterns`` match (each sorted),
    in that order, parsed and keyed by their POSIX path relative to ``root``."""
    paths = [root / name for name in names]
    for pattern in patterns:
        paths.extend(sorted(root.glob(pattern)))
    by_path = {}
    for path in paths:
        if not path.is_file():
            raise SpecFileError(path.relative_to(root), "", "file is missing")
        by_path[path.relative_to(root).as_posix()] = read_json(path, root)
    return by_path
