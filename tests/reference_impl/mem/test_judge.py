"""mem_judge: the seed's list of ids (a verdict on each memory: outdated, contradictory,
complementary or unrelated, from how each pair relates), and upstream's verdict on a
``judgment_id`` that a save's conflict candidates carry."""

from __future__ import annotations

import re

import pytest
from mcp import Client

from .servers import failed, fresh, ok, save

pytestmark = pytest.mark.anyio

_CANDIDATE = re.compile(r'^Candidate #(\d+) (rel-[0-9a-f]{16}): "(.*)" \((.*)\)$', re.MULTILINE)


def verdicts(answer: str) -> dict[int, str]:
    """The ``#<id>: <verdict>`` lines."""
    return {int(id_): word for id_, word in re.findall(r"^#(\d+): (\w+)$", answer, re.MULTILINE)}


def pairs(answer: str) -> dict[tuple[int, int], str]:
    """The ``#<a> #<b>: <relation> — <reason>`` lines."""
    found = re.findall(r"^#(\d+) #(\d+): (\w+) — ", answer, re.MULTILINE)
    return {(int(first), int(second)): relation for first, second, relation in found}


async def test_of_one_topic_the_older_is_outdated(mem: Client) -> None:
    """The topic evolved: the newer memory replaces the older (JUDGE-003), wherever each was
    saved."""
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
    lines = answer.splitlines()
    assert lines[:3] == [
        "Judged 2 memories (1 pairs):",
        f"#{older}: outdated",
        f"#{newer}: complementary",
    ]
    assert pairs(answer) == {(older, newer): "supersedes"}
    assert f"#{newer} supersedes #{older}" in lines[3]


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
    assert verdicts(answer) == {older: "outdated", newer: "complementary"}


async def test_every_id_gets_one_of_the_four_verdicts(mem: Client) -> None:
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
    retry = await save(
        mem, title="Stripe", type="bugfix", content="Retry delay of three seconds", project=project
    )
    again = await save(
        mem,
        title="Retries",
        type="bugfix",
        content="Stripe retry delay: three seconds",
        project=project,
    )
    other = await save(
        mem, title="Docker", type="config", content="Slim base image", project=project
    )
    ids = [other, again, retry, never, use]
    answer = await ok(mem, "mem_judge", ids=ids)
    assert verdicts(answer) == {
        use: "contradictory",
        never: "contradictory",
        retry: "complementary",
        again: "complementary",
        other: "unrelated",
    }
    assert pairs(answer)[use, never] == "conflicts"
    assert pairs(answer)[retry, again] == "compatible"
    assert pairs(answer)[use, other] == "unrelated"
    assert await ok(mem, "mem_judge", ids=ids[::-1]) == answer  # deterministic


async def test_the_same_topic_and_content_is_complementary(mem: Client) -> None:
    key = "decision/db"
    first = await save(mem, title="DB", content="sqlite", topic_key=key, project=fresh())
    second = await save(mem, title="DB", content="sqlite", topic_key=key, project=fresh())
    answer = await ok(mem, "mem_judge", ids=[first, second])
    assert verdicts(answer) == {first: "complementary", second: "complementary"}
    assert pairs(answer) == {(first, second): "compatible"}


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


# conflict candidates and recorded verdicts ----------------------------------------------------
async def test_a_save_that_resembles_memories_lists_them_as_candidates(mem: Client) -> None:
    project = fresh()
    first = await save(
        mem, title="Auth middleware design", type="architecture", content="JWT", project=project
    )
    await save(mem, title="Auth middleware design", content="x", project=fresh())  # elsewhere
    await save(mem, title="Auth middleware design", content="y", project=project, scope="personal")
    await save(mem, title="Billing retries", content="z", project=project)  # unlike
    answer = await ok(
        mem,
        "mem_save",
        title="Auth middleware design revisited",
        type="architecture",
        content="session tokens",
        project=project,
    )
    review = "CONFLICT REVIEW PENDING — 1 candidate(s); use mem_judge to record verdicts."
    assert review in answer.splitlines()
    [(candidate, judgment_id, title, memory_type)] = _CANDIDATE.findall(answer)
    assert (int(candidate), title, memory_type) == (first, "Auth middleware design", "architecture")
    saved = int(answer.rsplit("ID: ", 1)[1])
    recorded = await ok(mem, "mem_judge", judgment_id=judgment_id, relation="supersedes")
    assert recorded == f'Judgment "{judgment_id}" recorded: #{saved} supersedes #{first}'
    again = await ok(
        mem, "mem_judge", judgment_id=judgment_id, relation="compatible", confidence=0.5
    )
    assert again.endswith(f"#{saved} compatible #{first}")


async def test_at_most_three_candidates_sharing_half_the_title(mem: Client) -> None:
    project = fresh()
    titles = ("Pool size", "Pool size tuning", "Pool timeout", "Queue size", "Pool queue size")
    for title in (*titles, "Other"):
        await save(mem, title=title, content=title.lower(), project=project)
    answer = await ok(mem, "mem_save", title="Pool queue size limits", content="c", project=project)
    titles = [title for _, _, title, _ in _CANDIDATE.findall(answer)]
    assert titles == ["Pool queue size", "Queue size", "Pool size tuning"]
    duplicate = await ok(
        mem, "mem_save", title="Pool queue size limits", content="c", project=project
    )
    assert "Candidate" not in duplicate  # a duplicate stores no new text


async def test_a_title_without_subject_words_has_no_candidates(mem: Client) -> None:
    project = fresh()
    await save(mem, title="T", content="one", project=project)
    assert "CONFLICT" not in await ok(mem, "mem_save", title="T", content="two", project=project)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "give either ids (memories to judge) or judgment_id (a verdict to record)"),
        ({"ids": [1, 2], "judgment_id": "rel-x"}, "give either ids"),
        ({"judgment_id": "rel-0000000000000000", "relation": "related"}, "not found"),
        ({"judgment_id": "rel-x"}, "relation is required"),
        ({"relation": "related"}, "give either ids"),
        ({"judgment_id": "rel-x", "relation": "hates"}, "relation must be one of related, "),
        ({"judgment_id": "rel-x", "relation": "related", "confidence": 1.5}, "between 0 and 1"),
        ({"judgment_id": "rel-x", "relation": "related", "confidence": "high"}, "a number"),
        ({"judgment_id": "rel-x", "relation": "related", "session_id": "ghost"}, "not found"),
    ],
)
async def test_verdict_errors(mem: Client, arguments: dict[str, object], message: str) -> None:
    assert message in await failed(mem, "mem_judge", **arguments)


async def test_a_verdict_is_recorded_only_in_a_session_of_its_project(mem: Client) -> None:
    """Issue 23: a verdict named another project's session, which then held it."""
    project, own, foreign = fresh(), fresh("s"), fresh("s")
    await ok(mem, "mem_session_start", id=own, project=project)
    await ok(mem, "mem_session_start", id=foreign, project=fresh())
    await save(mem, title="Cache eviction policy", content="LRU", project=project)
    answer = await ok(
        mem, "mem_save", title="Cache eviction policy v2", content="LFU", project=project
    )
    [(_, judgment_id, _, _)] = _CANDIDATE.findall(answer)
    refused = await failed(
        mem, "mem_judge", judgment_id=judgment_id, relation="supersedes", session_id=foreign
    )
    assert refused == f'Session "{foreign}" is not a session of project "{project}"'
    recorded = await ok(
        mem, "mem_judge", judgment_id=judgment_id, relation="supersedes", session_id=own
    )
    assert recorded.startswith(f'Judgment "{judgment_id}" recorded: ')
