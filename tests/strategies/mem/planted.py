"""mem servers with bugs that only a sequence of calls shows, planted for the mem model check
(``conformance/mem/checks/model.py``) to find and shrink: a topic-key upsert that ignores the
scope, a hard delete that only hides a memory which an update then brings back, personal
memories that leak into every project's search, and a sighting right after the last one (a
retried save) counted twice.

Each is the reference's handlers over a service with store or memories methods replaced
(``ServiceMutant``); ``Caught`` says which rules it breaks among those the machine decides, and
which checks report each (the model check, and the scripted checks of the same rules that see
the bug too).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.store import TIME_FORMAT, Observation

from ...mutants.caught import Caught
from ...mutants.mem.seams import ServiceMutant

#: the model check's name, which reports every bug planted here
MODEL = "observations_follow_the_model"
#: how soon after its last sighting a repeat counts twice (a retried save comes that soon)
RETRY_WINDOW = timedelta(seconds=1)


class TopicUpsertIgnoresScope(ServiceMutant):
    """A save with a topic key revises the project's memory of that key in either scope: a
    personal memory's upsert overwrites the project-scope memory of the key, and the reverse."""

    def patch(self, service: MemService) -> None:
        connection = service.store.connection

        def topic_match(topic_key: str, project: str, scope: str) -> Observation | None:
            row = connection.execute(
                "SELECT * FROM observations WHERE topic_key = ? AND project = ? "
                "AND deleted_at IS NULL ORDER BY updated_at DESC, id DESC LIMIT 1",
                (topic_key, project),
            ).fetchone()
            return None if row is None else Observation(*row)

        service.store.topic_match = topic_match  # type: ignore[method-assign]


class HardDeleteHidesAndUpdateRevives(ServiceMutant):
    """A hard delete only soft-deletes (and then answers every delete of the id as gone), and
    an update of such a memory, though answered isError as for any id no memory has, clears
    its deletion first: a memory deleted for good comes back after an update is tried."""

    def patch(self, service: MemService) -> None:
        memories, store = service.memories, service.store
        hidden: set[int] = set()
        delete, update = memories.delete, memories.update

        def hiding(observation_id: int, *, hard: bool) -> bool:
            if observation_id in hidden:
                return False
            if hard and store.observation(observation_id, deleted=True) is not None:
                with store.transaction():
                    store.soft_delete(observation_id)
                hidden.add(observation_id)
                return True
            return delete(observation_id, hard=hard)

        def reviving(observation_id: int, given: dict[str, str | None]) -> Any:
            if observation_id not in hidden:
                return update(observation_id, given)
            store.connection.execute(
                "UPDATE observations SET deleted_at = NULL WHERE id = ?", (observation_id,)
            )
            return None

        memories.delete = hiding  # type: ignore[method-assign]
        memories.update = reviving  # type: ignore[method-assign]


class OtherProjectsLeakIntoSearches(ServiceMutant):
    """mem_search with a project also returns the project-scope memories of every other project
    (a personal memory of another project may show: seed 003's personal memories apply in any
    project)."""

    def patch(self, service: MemService) -> None:
        search = service.store.search

        def leaking(
            match: str, project: str | None, *rest: Any, personal_everywhere: bool
        ) -> list[Observation]:
            return search(match, None, *rest, personal_everywhere=personal_everywhere)

        service.store.search = leaking  # type: ignore[method-assign]


class RetriedDuplicateCountedTwice(ServiceMutant):
    """A duplicate that comes within a second of the memory's last sighting (a save retried
    after its answer was lost, a repeat right after the save) adds two to duplicate_count."""

    def patch(self, service: MemService) -> None:
        store = service.store
        seen_again = store.seen_again

        def counting_twice(observation_id: int) -> None:
            (last_seen,) = store.connection.execute(
                "SELECT last_seen_at FROM observations WHERE id = ?", (observation_id,)
            ).fetchone()
            seen = datetime.strptime(last_seen, TIME_FORMAT).replace(tzinfo=UTC)
            if datetime.now(UTC) - seen < RETRY_WINDOW:
                seen_again(observation_id)
            seen_again(observation_id)

        store.seen_again = counting_twice  # type: ignore[method-assign]


def mem_reported(by: dict[str, tuple[str, ...]]) -> Caught:
    """The mem rules of ``by`` broken, each reported by the model check and the checks named."""
    checks = {rule: frozenset({MODEL, *others}) for rule, others in by.items()}
    return Caught(tuple(by), reported_by=checks, contract="mem")


#: each planted bug and what it breaks (the machine shrinks the first rule it meets)
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (TopicUpsertIgnoresScope, mem_reported({"TOPIC-010": ("topics_are_kept_apart",)})),
    (HardDeleteHidesAndUpdateRevives, mem_reported({"DEL-003": ()})),
    # a memory of another project shown is a breach of isolation too (SCOPE-003, must)
    (
        OtherProjectsLeakIntoSearches,
        replace(
            mem_reported({"SRCH-004": ("project_filter_keeps_to_the_project",)}),
            broken=("SRCH-004", "SCOPE-003"),
        ),
    ),
    (RetriedDuplicateCountedTwice, mem_reported({"DEDUP-001": ("repeated_save_is_absorbed",)})),
]
