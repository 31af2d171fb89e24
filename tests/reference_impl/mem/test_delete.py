"""mem_delete: soft by default (hidden from search, context, get and timeline), for good with
``hard_delete`` (upstream's name) or ``hard`` (the seed's); a soft-deleted memory can be
hard-deleted, not soft-deleted again; after a hard delete every delete of the id fails."""

from __future__ import annotations

import pytest
from mcp import Client

from .servers import failed, fresh, ok, save

pytestmark = pytest.mark.anyio


async def _hidden(client: Client, memory: int, word: str, project: str) -> None:
    found = await ok(client, "mem_search", query=word, project=project)
    assert found.startswith("No memories found for: ")
    assert word not in await ok(client, "mem_context", project=project)
    not_found = f"Observation #{memory} not found"
    assert await failed(client, "mem_get_observation", id=memory) == not_found
    assert await failed(client, "mem_timeline", observation_id=memory) == not_found


async def test_a_soft_delete_hides_the_memory(mem: Client) -> None:
    word, project = fresh("gone"), fresh()
    kept = await save(mem, title="Kept", content="stays", project=project)
    memory = await save(mem, title=f"Doomed {word}", content=word, project=project)
    assert await ok(mem, "mem_delete", id=memory) == f"Memory #{memory} soft-deleted"
    await _hidden(mem, memory, word, project)
    timeline = await ok(mem, "mem_timeline", observation_id=kept)
    assert word not in timeline
    assert "- Observations:" in await ok(mem, "mem_stats")


@pytest.mark.parametrize("flag", ["hard_delete", "hard"])
async def test_a_hard_delete_removes_the_memory(mem: Client, flag: str) -> None:
    word, project = fresh("purged"), fresh()
    memory = await save(mem, title=f"Doomed {word}", content=word, project=project)
    answer = await ok(mem, "mem_delete", id=memory, **{flag: True})
    assert answer == f"Memory #{memory} permanently deleted"
    await _hidden(mem, memory, word, project)
    assert await failed(mem, "mem_delete", id=memory) == f"Observation #{memory} not found"


@pytest.mark.parametrize("flag", ["hard_delete", "hard"])
async def test_a_soft_deleted_memory_can_be_removed(mem: Client, flag: str) -> None:
    memory = await save(mem, title="T", content="C", project=fresh())
    not_found = f"Observation #{memory} not found"
    await ok(mem, "mem_delete", id=memory)
    assert await failed(mem, "mem_delete", id=memory) == not_found
    assert "permanently" in await ok(mem, "mem_delete", id=memory, **{flag: True})
    for again in ({}, {"hard": True}, {"hard_delete": True}):
        assert await failed(mem, "mem_delete", id=memory, **again) == not_found


async def test_false_flags_soft_delete(mem: Client) -> None:
    memory = await save(mem, title="T", content="C", project=fresh())
    answer = await ok(mem, "mem_delete", id=memory, hard=False, hard_delete=False)
    assert answer.endswith("soft-deleted")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "id is required"),
        ({"id": 8_000_000_000_000}, "Observation #8000000000000 not found"),
        ({"id": 1, "hard": "true"}, "hard must be a boolean"),
        ({"id": 1, "hard_delete": 1}, "hard_delete must be a boolean"),
    ],
)
async def test_delete_errors(mem: Client, arguments: dict[str, object], message: str) -> None:
    assert await failed(mem, "mem_delete", **arguments) == message


@pytest.mark.parametrize("hard_delete", [True, False])
async def test_the_two_flags_disagreeing_delete_nothing(mem: Client, hard_delete: bool) -> None:
    """Attack round 6: hard_delete false with hard true deleted for good."""
    word, project = fresh("kept"), fresh()
    memory = await save(mem, title=f"Kept {word}", content=word, project=project)
    refused = await failed(
        mem, "mem_delete", id=memory, hard_delete=hard_delete, hard=not hard_delete
    )
    assert refused == "hard_delete and hard disagree: nothing was deleted (give one of them)"
    assert word in await ok(mem, "mem_get_observation", id=memory)
    answer = await ok(mem, "mem_delete", id=memory, hard_delete=True, hard=True)
    assert answer == f"Memory #{memory} permanently deleted"
