"""A mem server that forgets its memories when it stops (SAVE-008): only a server the harness
starts and stops over stdio can show it, so it is planted by ``stdio_server.py``."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from engram_conformance.reference_impl.mem import service

from ...caught import Caught
from ..seams import mem_caught


def keeps_a_temporary_store() -> None:
    """The server keeps its database in a temporary folder of its own, not the data folder it
    was given: what one process saved, the next one started on that data folder does not have."""
    service.private_folder = lambda given: Path(tempfile.mkdtemp())  # type: ignore[assignment]


#: each planted mutant, by the name ``stdio_server.py`` is given, and what it breaks
STDIO: dict[str, tuple[Callable[[], None], Caught]] = {
    "temporary-store": (keeps_a_temporary_store, mem_caught("SAVE-008")),
}
