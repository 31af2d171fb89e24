"""mem_judge: for each pair of the given memories, supersedes (same topic, the older is
outdated), conflicts (same subject, one negates the other) or compatible."""

from __future__ import annotations

import pytest
from mcp import Client

from .servers import failed, fresh, ok, save

pytestmark = pytest.mark.anyio


def verdicts(answer: str) -> dict[tuple[int, int], str]:
    lines = answer.splitlines()
    pairs = {}
    for line in lines[1:-1]:
        ids, _, rest = line.partition(": ")
        first, second = (int(part.lstrip("#")) for part in ids.split())
        pairs[first, second] = rest.split(" — ")[0]
    return pairs


async def test_the_same_topic_in_two_projects_supersedes(mem: Client) -> None:
    key = "architecture/auth-middleware-design"
    older = await save(
        mem,
        title="Auth: JWT",
        type="architecture",
        content="JWT RS256",
        topic_key=key,
        project=fresh(),
    )
    newer = await save(
        mem,
        title="Auth: tokens",
        type="architecture",
        content="session tokens HTTP-only",
        topic_key=key,
        project=fresh(),
    )
    answer = await ok(mem, "mem_judge", ids=[newer, older])
    assert answer.splitlines()[0] == "Judged 2 memories (1 pairs):"
    assert verdicts(answer) == {(older, newer): "supersedes"}
    assert f"#{newer} supersedes #{older}" in answer
    assert answer.splitlines()[-1] == f"Outdated: #{older}"


async def test_titles_of_one_head_are_one_topic(mem: Client) -> None:
    project = fresh()
    older = await save(
        mem,
        title="Auth middleware: JWT validation strategy",
        type="architecture",
        content="What: Usamos JWT con RS256",
        project=project,
    )
    newer = await save(
        mem,
        title="Auth middleware: migración a session tokens",
        type="design",
        content="What: Migramos a session tokens",
        project=project,
    )
    answer = await ok(mem, "mem_judge", ids=[older, newer])
    assert verdicts(answer) == {(older, newer): "supersedes"}


async def test_opposite_statements_conflict(mem: Client) -> None:
    project = fresh()
    use = await save(
        mem,
        title="Tabs",
        type="pattern",
        content="Use tabs for indentation in Go files",
        project=project,
    )
    never = await save(
        mem,
        title="Spaces",
        type="pattern",
        content="Never use tabs for indentation in Go files",
        project=project,
    )
    other = await save(
        mem, title="Stripe", type="bugfix", content="Retry delay of three seconds", project=project
    )
    answer = await ok(mem, "mem_judge", ids=[use, never, other])
    assert verdicts(answer) == {
        (use, never): "conflicts",
        (use, other): "compatible",
        (never, other): "compatible",
    }
    assert answer.splitlines()[-1] == "Outdated: none"


async def test_the_same_topic_and_content_is_compatible(mem: Client) -> None:
    key = "decision/db"
    first = await save(mem, title="DB", content="sqlite", topic_key=key, project=fresh())
    second = await save(mem, title="DB", content="sqlite", topic_key=key, project=fresh())
    assert verdicts(await ok(mem, "mem_judge", ids=[first, second])) == {
        (first, second): "compatible"
    }


async def test_unknown_or_deleted_ids_are_errors(mem: Client) -> None:
    kept = await save(mem, title="A", content="a", project=fresh())
    deleted = await save(mem, title="B", content="b", project=fresh())
    await ok(mem, "mem_delete", id=deleted)
    message = await failed(mem, "mem_judge", ids=[kept, deleted])
    assert message == f"Observation #{deleted} not found"
    assert await failed(mem, "mem_judge", ids=[kept, 7_000_000_000]) == (
        "Observation #7000000000 not found"
    )


@pytest.mark.parametrize(
    "ids", [[], [1], [1, 1], "1,2", [1, "2"], [1, 2.5], [1, -2], [1, None], [[1], 2]]
)
async def test_bad_id_lists_are_errors(mem: Client, ids: object) -> None:
    await failed(mem, "mem_judge", ids=ids)


async def test_at_most_twenty(mem: Client) -> None:
    ids = [await save(mem, title=f"T{n}", content=f"c{n}", project=fresh()) for n in range(21)]
    assert await failed(mem, "mem_judge", ids=ids) == "ids: at most 20 memories at once"
