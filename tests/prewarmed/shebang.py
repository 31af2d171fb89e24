"""Whether a file is a console script of this Python: the one test of it, read by both the
tests' side (``Zygote.command``) and the zygote (which imports nothing of the tests)."""

from __future__ import annotations

import sys
from pathlib import Path


def is_script_of_this_python(path: Path) -> bool:
    """Whether ``path`` is a file whose first line is ``#!`` and this interpreter."""
    if not path.is_file():
        return False
    with path.open("rb") as file:
        return file.readline(4096).strip() == f"#!{sys.executable}".encode()
