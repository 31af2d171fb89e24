"""mem_search: v1.7.0's listing, type/project/scope filters (an explicit project is that
project's only; all_projects every project's), every term or any (match_mode), limit default
10 and cap 20, no hit is no error, and no query text is an FTS5 error."""

from __future__ import annotations

import re

import pytest
from mcp import Client

from .servers import failed, fresh, ok, save

pytestmark = pytest.mark.anyio


def hits(answer: str) -> int:
    if answer.startswith("No memories found for: "):
        return 0
    found = re.match(r"Found (\d+) memories:\n\n", answer)
    assert found is not None, answer
    return int(found.group(1))


async def test_the_listing(mem: Client) -> None:
    word, project = fresh("auth"), fresh()
    memory = await save(
        mem,
        title=f"Auth bug {word}",
        type="bugfix",
        content=f"What: {word} token\nWhy: expired",
        project=project,
    )
    lines = (await ok(mem, "mem_search", query=word, project=project)).splitlines()
    assert lines[:3] == ["Found 1 memories:", "", f"[1] #{memory} (bugfix) — Auth bug {word}"]
    assert lines[3] == f"    What: {word} token Why: expired"
    assert re.fullmatch(
        rf"    \d{{4}}-\d\d-\d\d [\d:.]+ \| project: {project} \| scope: project", lines[4]
    )


async def test_the_type_filter(mem: Client) -> None:
    word, project = fresh("auth"), fresh()
    await save(mem, title=f"{word} fix", type="bugfix", content="x", project=project)
    await save(mem, title=f"{word} design", type="architecture", content="y", project=project)
    answer = await ok(mem, "mem_search", query=word, project=project, type="bugfix")
    assert hits(answer) == 1 and "(bugfix)" in answer


async def test_type_and_topic_key_are_indexed(mem: Client) -> None:
    project, word = fresh(), fresh("k")
    await save(
        mem, title="T", type="config", content="x", topic_key=f"config/{word}", project=project
    )
    assert hits(await ok(mem, "mem_search", query=word, project=project)) == 1
    assert hits(await ok(mem, "mem_search", query="config", project=project)) == 1


async def test_every_term_must_match(mem: Client) -> None:
    project = fresh()
    await save(mem, title="pool exhausted", content="connections", project=project)
    assert hits(await ok(mem, "mem_search", query="pool connections", project=project)) == 1
    assert hits(await ok(mem, "mem_search", query="pool elephants", project=project)) == 0
    all_terms = {"query": "pool elephants", "project": project, "match_mode": "all"}
    assert hits(await ok(mem, "mem_search", **all_terms)) == 0


async def test_match_mode_any_needs_one_term(mem: Client) -> None:
    project = fresh()
    await save(mem, title="pool exhausted", content="connections", project=project)
    await save(mem, title="elephants", content="large", project=project)
    answer = await ok(mem, "mem_search", query="pool elephants", project=project, match_mode="any")
    assert hits(answer) == 2
    message = await failed(mem, "mem_search", query="pool", project=project, match_mode="some")
    assert message == 'match_mode must be "all" or "any"'


async def test_an_explicit_project_is_that_projects_only(mem: Client) -> None:
    """Another project's personal memories too stay out (SRCH-004); without a project they
    join the current project's, as they do every context."""
    word, home, other = fresh("w"), fresh(), fresh()
    await save(mem, title=f"{word} home", content="x", project=home, scope="personal")
    await save(mem, title=f"{word} other", content="x", project=other, scope="personal")
    answer = await ok(mem, "mem_search", query=word, project=home)
    assert hits(answer) == 1 and f"{word} home" in answer
    assert hits(await ok(mem, "mem_search", query=word)) == 2
    assert hits(await ok(mem, "mem_search", query=word, scope="personal")) == 2


async def test_all_projects(mem: Client) -> None:
    word, projects = fresh("w"), [fresh(), fresh()]
    for project in projects:
        await save(mem, title=f"{word} in {project}", content="x", project=project)
    everywhere = {"query": word, "project": projects[0], "all_projects": True}
    assert hits(await ok(mem, "mem_search", **everywhere)) == 2
    assert hits(await ok(mem, "mem_search", query=word, all_projects=False)) == 0


async def test_limit_default_10_and_cap_20(mem: Client) -> None:
    word, project = fresh("many"), fresh()
    for number in range(25):
        await save(mem, title=f"{word} {number}", content=f"item {number}", project=project)
    assert hits(await ok(mem, "mem_search", query=word, project=project)) == 10
    assert hits(await ok(mem, "mem_search", query=word, project=project, limit=3)) == 3
    assert hits(await ok(mem, "mem_search", query=word, project=project, limit=9999)) == 20
    assert hits(await ok(mem, "mem_search", query=word, project=project, limit=0)) == 10
    assert hits(await ok(mem, "mem_search", query=word, project=project, limit=-4)) == 10


async def test_no_hit_is_no_error(mem: Client) -> None:
    word = fresh("nothing")
    assert await ok(mem, "mem_search", query=word) == f'No memories found for: "{word}"'


HOSTILE_QUERIES = [
    '"',
    '"unbalanced',
    'a"b',
    '""',
    "AND",
    "OR NOT",
    "a AND b OR c NOT d",
    "NEAR(a b, 2)",
    "auth*",
    "*",
    "^start",
    "title:auth",
    "(a OR b",
    "a)",
    "-minus",
    "- -",
    "{a b}",
    "col : value",
    "'single'",
    "\\",
    "a\x00b",
    "😀 émoji",
]


@pytest.mark.parametrize("query", HOSTILE_QUERIES)
async def test_query_text_never_errors(mem: Client, query: str) -> None:
    project = fresh()
    await save(mem, title="auth start value", content="a b c d minus single", project=project)
    answer = await ok(mem, "mem_search", query=query, project=project)
    assert hits(answer) in (0, 1)


async def test_operators_are_plain_words(mem: Client) -> None:
    project = fresh()
    await save(mem, title="Use NEAR and OR", content="literally", project=project)
    assert hits(await ok(mem, "mem_search", query="NEAR OR", project=project)) == 1
    assert hits(await ok(mem, "mem_search", query='"near" (or)', project=project)) == 1


@pytest.mark.parametrize("query", ["", "   ", None, "\u200b", "\u00ad \ufeff"])
async def test_an_empty_query_is_an_error(mem: Client, query: str | None) -> None:
    assert await failed(mem, "mem_search", query=query) == "query is required"


TOO_MANY_WORDS = "query has too many words (at most 32, a repeated one counted once)"


@pytest.mark.parametrize(
    "query",
    [
        "-".join(["a"] * 500),  # one phrase of 500 words: 8 s over 40 repetitive memories
        " ".join(f"w{n}" for n in range(33)),
        " ".join("-".join(f"{group}{n}" for n in range(8)) for group in "abcd") + " e",
    ],
)
async def test_a_query_of_more_than_32_words_is_refused(mem: Client, query: str) -> None:
    assert await failed(mem, "mem_search", query=query, project=fresh()) == TOO_MANY_WORDS


async def test_a_repeated_term_counts_once_and_matches_as_one(mem: Client) -> None:
    """Repeats of a word (500 took minutes over repetitive memories) find what it finds."""
    word, project = fresh("rep"), fresh()
    memory = await save(mem, title=f"Repeat {word}", content="again and again", project=project)
    for query in (" ".join([word] * 60), f"{word} {word.upper()} again AGAIN"):
        found = await ok(mem, "mem_search", query=query, project=project)
        assert hits(found) == 1 and f"#{memory} " in found
    within = " ".join(f"w{n}" for n in range(31)) + f" {word}"
    assert hits(await ok(mem, "mem_search", query=within, project=project)) == 0
