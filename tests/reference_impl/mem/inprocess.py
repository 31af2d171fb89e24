"""The mem reference's service in this process, for what a test must reach under the MCP layer
(a store that fails half-way, the database's own pages)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engram_conformance.reference_impl.mem.project import current_project
from engram_conformance.reference_impl.mem.service import MemService


@contextmanager
def service(folder: Path) -> Iterator[MemService]:
    """A service on ``folder/state`` whose current project is ``work``, no dedupe window."""
    mem = MemService(folder / "state", current_project("work", folder), None)
    try:
        yield mem
    finally:
        mem.close()


def ok(mem: MemService, tool: str, **arguments: object) -> str:
    """The text of a call that must succeed."""
    answer = mem.call(tool, arguments)
    assert not answer.is_error, answer.text
    return answer.text
