"""What both contracts' ``spec lint`` share: the problem type, and the problems of reading a spec
folder and of its shape, found before any check of consistency."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .json_files import SpecFileError


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the spec: the file (relative to the spec folder), where, and what."""

    file: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: at '{self.pointer}': {self.message}"


def file_problems(spec_type: Any, root: Path) -> tuple[list[Problem], Any]:
    """The problems of reading the folder ``root`` (the first file that cannot be read) or else of
    its shape (every one), with no spec; or none, with the spec of ``spec_type`` (a
    ``loaded.LoadedSpec``) built from the folder, for the checks of consistency."""
    try:
        documents, registry, found = spec_type.read_folder(root)
    except SpecFileError as error:
        return [Problem(str(error.path), error.pointer, error.problem)], None
    shape = [Problem(*problem) for problem in found]
    if shape:
        return shape, None
    return [], spec_type(documents, registry)
