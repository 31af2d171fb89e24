"""Whether a file is a console script of this Python: the one test of it, read by both the
tests' side (``Zygote.command``) and the zygote (which imports nothing of the tests)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def is_script_of_this_python(path: Path) -> bool:
    """Whether ``path`` is a file whose first line is ``#!`` and this interpreter: its own
    path, or another name of it in the same folder (a virtual environment's ``python3`` beside
    its ``python``: pip writes the name it was run by)."""
    if not path.is_file():
        return False
    with path.open("rb") as file:
        line = file.readline(4096).strip()
    if not line.startswith(b"#!"):
        return False
    named, this = Path(os.fsdecode(line[2:])), Path(sys.executable)
    return named == this or (named.parent == this.parent and named.resolve() == this.resolve())
