"""The current project: the one ``mem_current_project`` names and a call without ``project``
works in.

Upstream v1.20 detects it from git (remote, root) and falls back to the working folder's
basename; a process-level default overrides detection. The reference keeps the two that need
no git: the ``--project`` serve option (source ``process_override``), else the basename of the
server's working folder (``dir_basename``), both normalised (``normalized``). The harness starts the
server in a fresh empty folder, so detection is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .arguments import scalar
from .text import folded_form

#: the project of a working folder with no name (the file system's root)
UNNAMED = "default"


class BadProject(ValueError):
    """A ``--project`` that names no project (blank)."""


@dataclass(frozen=True)
class CurrentProject:
    name: str
    source: str
    #: the folder it was detected from ("" when given)
    path: str
    cwd: str


def current_project(given: str | None, cwd: Path) -> CurrentProject:
    """The project named by ``given`` (``--project``), else by ``cwd``. A folder name that is
    not UTF-8 reads with U+FFFD in place of its bad bytes."""
    folder = scalar(str(cwd))
    if given is not None:
        name = normalized(scalar(given))
        if not name:
            raise BadProject("--project: a project name must not be blank")
        return CurrentProject(name, "process_override", "", folder)
    name = normalized(scalar(cwd.name)) or UNNAMED
    return CurrentProject(name, "dir_basename", folder, folder)


def normalized(name: str) -> str:
    """``name`` as one project is named however it was typed: compatibility forms folded
    (NFKC: fullwidth letters, no-break spaces), invisible format characters dropped (a zero
    width space), runs of whitespace as one space, trimmed and lowercased (attack round 4: five
    spellings of "my proj" were five projects)."""
    return " ".join(folded_form(name).split()).lower()
