"""mem servers whose hash dedupe goes wrong (DEDUP), as real ones do: a repeat not counted, its
last sighting not recorded, a field left out of the match or one too many compared, the content
compared as typed, a soft-deleted memory still matched, a repeat answered as an error.

Each is the reference's handlers over a service with one store or memories method replaced
(``seams.ServiceMutant``); ``Caught`` says which DEDUP rules it breaks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from engram_conformance.reference_impl.mem.arguments import ToolError
from engram_conformance.reference_impl.mem.memories import DUPLICATE, Draft, Saved
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.store import Observation, Store

from ...caught import Caught
from ..seams import ServiceMutant, mem_caught

#: what the reference's dedupe compares: a save's values, column by column
COMPARED = ("normalized_hash", "project", "type", "title")


def duplicate_finder(
    store: Store, compared: tuple[str, ...], *, deleted_too: bool = False
) -> Callable[[dict[str, Any], str], Observation | None]:
    """A ``Store.duplicate_of`` that matches a save's ``compared`` values (and with
    ``deleted_too`` soft-deleted rows as well)."""
    matched = " AND ".join(f"{column} = ?" for column in compared)
    live = "" if deleted_too else " AND deleted_at IS NULL"
    sql = (
        f"SELECT * FROM observations WHERE {matched} AND created_at >= ?{live} "
        "ORDER BY created_at DESC, id DESC LIMIT 1"
    )

    def duplicate_of(values: dict[str, Any], created_since: str) -> Observation | None:
        rows = store.connection.execute(sql, (*(values[c] for c in compared), created_since))
        row = rows.fetchone()
        return None if row is None else Observation(*row)

    return duplicate_of


class MatchesDuplicates(ServiceMutant):
    compared: ClassVar[tuple[str, ...]] = COMPARED
    deleted_too: ClassVar[bool] = False

    def patch(self, service: MemService) -> None:
        finder = duplicate_finder(service.store, self.compared, deleted_too=self.deleted_too)
        service.store.duplicate_of = finder  # type: ignore[method-assign]


class DedupeIgnoresTitle(MatchesDuplicates):
    """A save with the same content, type and project but another title is taken as a
    duplicate."""

    compared = ("normalized_hash", "project", "type")


class DedupeComparesScope(MatchesDuplicates):
    """Dedupe also compares the scope (upstream's rule), so the same memory saved personal is a
    second observation."""

    compared = (*COMPARED, "scope")


class ContentComparedExactly(MatchesDuplicates):
    """Dedupe compares the content as typed, not lowercased with its whitespace collapsed."""

    compared = (*COMPARED, "content")


class DedupeSeesSoftDeleted(MatchesDuplicates):
    """A save identical to a soft-deleted memory is absorbed into it, so it stays hidden."""

    deleted_too = True


class TopicSeesSoftDeleted(ServiceMutant):
    """A save with the topic_key of a soft-deleted memory revises it, so it stays hidden."""

    def patch(self, service: MemService) -> None:
        connection = service.store.connection

        def topic_match(topic_key: str, project: str, scope: str) -> Observation | None:
            row = connection.execute(
                "SELECT * FROM observations WHERE topic_key = ? AND project = ? AND scope = ? "
                "ORDER BY updated_at DESC, id DESC LIMIT 1",
                (topic_key, project, scope),
            ).fetchone()
            return None if row is None else Observation(*row)

        service.store.topic_match = topic_match  # type: ignore[method-assign]


class SeesAgain(ServiceMutant):
    """A duplicate absorbed with ``assignments`` (SQL ``SET`` items over ``:now``)."""

    assignments: ClassVar[str]

    def patch(self, service: MemService) -> None:
        store = service.store
        sql = f"UPDATE observations SET {self.assignments} WHERE id = :id"

        def seen_again(observation_id: int) -> None:
            store.connection.execute(sql, {"now": store.now(), "id": observation_id})

        store.seen_again = seen_again  # type: ignore[method-assign]


class DuplicateNotCounted(SeesAgain):
    """A duplicate save updates last_seen_at but leaves duplicate_count at 1."""

    assignments = "last_seen_at = :now"


class LastSeenNotUpdated(SeesAgain):
    """A duplicate save counts the duplicate but leaves last_seen_at as it was."""

    assignments = "duplicate_count = duplicate_count + 1"


class DuplicateAnswersError(ServiceMutant):
    """A repeated save is absorbed and counted, but answered isError ("already exists")."""

    def patch(self, service: MemService) -> None:
        save = service.memories.save

        def refusing(draft: Draft) -> Saved:
            saved = save(draft)
            if saved.outcome == DUPLICATE:
                raise ToolError("a memory with this content already exists")
            return saved

        service.memories.save = refusing  # type: ignore[method-assign]


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (DuplicateAnswersError, mem_caught("DEDUP-001")),
    (DuplicateNotCounted, mem_caught("DEDUP-001", "DEDUP-004", "DEDUP-006")),
    (LastSeenNotUpdated, mem_caught("DEDUP-002")),
    (DedupeIgnoresTitle, mem_caught("DEDUP-003")),
    (DedupeComparesScope, mem_caught("DEDUP-004")),
    (ContentComparedExactly, mem_caught("DEDUP-006")),
    (DedupeSeesSoftDeleted, mem_caught("DEDUP-007")),
    (TopicSeesSoftDeleted, mem_caught("DEDUP-007")),
]
