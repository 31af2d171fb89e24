"""mem servers whose dedupe window is not the one they were started with, or that measure it
from the wrong instant (DEDUP-005): each the reference with its window's store changed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.store import Observation

from ...caught import Caught
from ..seams import ServiceMutant, mem_caught


class WindowNeverEnds(ServiceMutant):
    """A repeat is absorbed however long after the first save it comes."""

    def patch(self, service: MemService) -> None:
        service.memories.dedupe_window = timedelta(days=365)


class WindowShorterThanSaid(ServiceMutant):
    """The window is one second, not the one the server was started with."""

    def patch(self, service: MemService) -> None:
        service.memories.dedupe_window = timedelta(seconds=1)


class WindowFromLastRepeat(ServiceMutant):
    """The window runs from the last repeat (``last_seen_at``), not from the creation."""

    def patch(self, service: MemService) -> None:
        store = service.store

        def duplicate_of(values: dict[str, Any], seen_since: str) -> Observation | None:
            return store._first(
                "SELECT * FROM observations WHERE normalized_hash = ? AND project = ? "
                "AND type = ? AND title = ? AND last_seen_at >= ? AND deleted_at IS NULL",
                (
                    values["normalized_hash"],
                    values["project"],
                    values["type"],
                    values["title"],
                    seen_since,
                ),
            )

        store.duplicate_of = duplicate_of  # type: ignore[method-assign]


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (mutant, mem_caught("DEDUP-005"))
    for mutant in (WindowNeverEnds, WindowShorterThanSaid, WindowFromLastRepeat)
]
