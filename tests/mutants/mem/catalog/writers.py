"""mem servers that cannot share a data folder with another process (SAVE-013): only servers the
harness starts as processes of their own can show it, so they are planted by ``stdio_server.py``.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram_conformance.reference_impl.mem import service

from ...caught import Caught
from ..seams import mem_caught

SHARING = mem_caught("SAVE-013")


def refuses_while_another_writes() -> None:
    """The first process on a data folder takes its write lock for good; a save of any other
    process meets the locked database and fails (upstream issue #125's "database is locked")."""
    opened = service.MemService.__init__
    answered = service.MemService.call

    def holding(self: Any, state_dir: Path, *args: Any) -> None:
        opened(self, state_dir, *args)
        self.lock = (Path(state_dir) / "writer.lock").open("w")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.writes = True
        except BlockingIOError:
            self.writes = False

    def call(self: Any, tool: str, sent: Any) -> service.Answer:
        if tool == "mem_save" and not self.writes:
            return service.Answer("mem_save failed: database is locked", is_error=True)
        return answered(self, tool, sent)

    service.MemService.__init__ = holding  # type: ignore[method-assign]
    service.MemService.call = call  # type: ignore[method-assign]


def keeps_a_store_per_process() -> None:
    """Each process keeps its database in a folder of its own under the data folder: what the
    others saved, none of them finds."""
    folder = service.private_folder
    service.private_folder = lambda given: folder(Path(given) / f"p{os.getpid()}")  # type: ignore[assignment]


#: each planted mutant, by the name ``stdio_server.py`` is given, and what it breaks
STDIO: dict[str, tuple[Callable[[], None], Caught]] = {
    "refuses-while-another-writes": (refuses_while_another_writes, SHARING),
    "store-per-process": (keeps_a_store_per_process, SHARING),
}
