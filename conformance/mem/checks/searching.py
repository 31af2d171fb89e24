"""Search (SRCH): filters, limits, no-hit answers and hostile query text.

Every check works in a fresh project and searches by tokens no other check uses, naming the
project, so that what a search finds is exactly what the check saved. The memories that share
a search word each also carry a token of their own in the title, by which its id is read back
(v1.7.0's ``mem_save`` answers no id).

The hostile query texts of SRCH-006 and SRCH-007 are judged on the answer alone (a tool result,
``isError`` false), whatever it finds; SRCH-007's operator words are also probed as plain words:
a memory holding every word of ``<token> NOT near`` is found by it (an operator ``NOT`` would
leave it out). SRCH-009 and SRCH-010 need arguments upstream added after v1.7.0 (their rules'
``requires``): a server whose ``mem_search`` schema lacks one gets the rule ``not_applicable``
(``steps.requirements_unmet``).
"""

from __future__ import annotations

from typing import Any

from ..facts import MemoryId, SearchResult, ToolFailure
from .context import MemContext
from .registry import check
from .steps import (
    Project,
    expect_in_time,
    found_ids,
    fresh_project,
    ids_of,
    requirements_unmet,
    save,
    saved_memory,
    search,
    what_why,
)

SAVE, SEARCH = "mem_save", "mem_search"
SEARCHING = (SAVE, SEARCH)
#: SRCH-003: the default and the largest number of results, and how many memories match
DEFAULT_LIMIT, MOST_RESULTS = 10, 20
MATCHING = MOST_RESULTS + 1
#: SRCH-006: query texts holding double quotes (``{}``: the check's token)
QUOTED_QUERIES = ('a"b', '"x', '""', '"', 'x"', '"{} quoted"', '{} "half', 'say "a"b" {}')
#: SRCH-007: query texts holding full-text operators and punctuation
OPERATOR_QUERIES = (
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "{} AND",
    "OR {}",
    "NOT {}",
    "NEAR({} x)",
    "{}*",
    "*",
    "^{}",
    "-{}",
    "+{}",
    "{} - x",
    "title:{}",
    "{}:",
    "({}",
    "{})",
    "()",
    "a OR b AND NOT c",
)
#: SRCH-007: the words a memory holds, and queries made of them with operator words
PLAIN_WORDS = "Operators read as words: and, or, not, near."
AS_WORDS = ("{} NOT near", "{} AND or", "{} OR", "NEAR {} not")


async def _sharing(
    ctx: MemContext, project: Project, label: str, shared: str, memory_type: str = "discovery"
) -> MemoryId:
    """The id of a new memory of ``project`` whose content holds ``shared`` and whose title a
    token of its own (``label`` names it)."""
    own = ctx.unique(label)
    return await saved_memory(ctx, project, own, memory_type, content=what_why(f"{own} {shared}"))


async def _in_two_projects(
    ctx: MemContext, label: str
) -> tuple[str, tuple[Project, MemoryId], tuple[Project, MemoryId]]:
    """A search word (``label`` names it), and two fresh projects each with a memory holding
    it: the one a search asks for, and another."""
    shared = ctx.unique(label)
    asked, other = await fresh_project(ctx, "srchasked"), await fresh_project(ctx, "srchother")
    mine = await _sharing(ctx, asked, "srchmine", shared)
    theirs = await _sharing(ctx, other, "srchtheirs", shared)
    return shared, (asked, mine), (other, theirs)


@check(rules=("SRCH-001",), tools=SEARCHING)
async def type_filter_returns_that_type(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    shared = ctx.unique("srchtype")
    bugfix = await _sharing(ctx, project, "srchbug", shared, "bugfix")
    others = [await _sharing(ctx, project, "srchother", shared, t) for t in ("decision", "config")]
    every = await found_ids(ctx, shared, project=project.name)
    ctx.require({bugfix, *others} <= set(every), "every memory found without a type", every)
    found = await search(ctx, shared, project=project.name, type="bugfix")
    ids = ids_of(found)
    ctx.expect(
        "SRCH-001",
        bugfix in ids and not set(others) & set(ids),
        expected=f"type=bugfix finds #{bugfix} and neither of #{others[0]}, #{others[1]}",
        observed=found,
    )


@check(rules=("SRCH-002",), tools=SEARCHING)
async def type_word_is_indexed(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    type_word = ctx.unique("srchkind")
    memory = await saved_memory(ctx, project, ctx.unique("srchtitle"), type_word)
    found = await search(ctx, type_word, project=project.name)
    ctx.expect(
        "SRCH-002",
        memory in ids_of(found),
        expected=f"a search for the type {type_word} finds #{memory} (neither title nor content)",
        observed=found,
    )


@check(rules=("SRCH-003",), tools=SEARCHING)
async def limit_bounds_the_results(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    shared = ctx.unique("srchlimit")
    for _ in range(MATCHING):
        own = ctx.unique("srchmany")
        await save(ctx, project, f"Memory {own}", what_why(f"{own} {shared}"))
    bounds = ((None, DEFAULT_LIMIT, "at most"), (3, 3, "exactly"), (50, MOST_RESULTS, "at most"))
    for limit, most, how in bounds:
        filters: dict[str, Any] = {"project": project.name}
        filters |= {"limit": limit} if limit is not None else {}
        found = await search(ctx, shared, **filters)
        count = len(ids_of(found))
        within = count == most if how == "exactly" else count <= most
        ctx.expect(
            "SRCH-003",
            isinstance(found, SearchResult) and within,
            expected=f"limit {limit}: {how} {most} of {MATCHING} matches, no error",
            observed=found,
        )


@check(rules=("SRCH-004",), tools=SEARCHING)
async def project_filter_keeps_to_the_project(ctx: MemContext) -> None:
    shared, (asked, mine), (other, theirs) = await _in_two_projects(ctx, "srchproj")
    found = await search(ctx, shared, project=asked.name)
    ctx.require(mine in ids_of(found), f"#{mine} found in its own project", found)
    ctx.expect(
        "SRCH-004",
        theirs not in ids_of(found),
        expected=f"project {asked.name} does not find #{theirs} of project {other.name}",
        observed=found,
    )


@check(rules=("SRCH-005",), tools=(SEARCH,))
async def no_hit_is_no_error(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    found = await search(ctx, ctx.unique("srchnothing"), project=project.name)
    ctx.expect(
        "SRCH-005",
        isinstance(found, SearchResult) and (found.none_found or not found.hits),
        expected="isError false and an answer that nothing was found",
        observed=found,
    )


async def _answers_every(
    ctx: MemContext, rule: str, project: Project, queries: tuple[str, ...], token: str
) -> None:
    """Each query (``{}`` filled with ``token``) answers a tool result with isError false."""
    for query in (q.replace("{}", token) for q in queries):
        answer = await ctx.call(SEARCH, {"query": query, "project": project.name})
        ctx.expect(
            rule,
            answer.outcome == "result" and answer.is_error is False,
            expected=f"mem_search of {query!r} answers isError false",
            observed=answer,
        )


@check(rules=("SRCH-006",), tools=(SEARCH,))
async def quotes_never_fail_a_search(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    await _answers_every(ctx, "SRCH-006", project, QUOTED_QUERIES, ctx.unique("srchquote"))


@check(rules=("SRCH-007",), tools=SEARCHING)
async def operators_are_plain_words(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    token = ctx.unique("srchops")
    await _answers_every(ctx, "SRCH-007", project, OPERATOR_QUERIES, token)
    memory = await saved_memory(ctx, project, token, content=f"{PLAIN_WORDS} {token}")
    for query in (q.replace("{}", token) for q in AS_WORDS):
        found = await search(ctx, query, project=project.name)
        ctx.expect(
            "SRCH-007",
            memory in ids_of(found),
            expected=f"{query!r}, its words taken as plain words, finds #{memory}",
            observed=found,
        )


@check(rules=("SRCH-008",), tools=SEARCHING)
async def every_word_is_required(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    first, second = ctx.unique("srchone"), ctx.unique("srchtwo")
    partial = await _sharing(ctx, project, "srchsome", first)
    whole = await _sharing(ctx, project, "srchall", f"{first} {second}")
    found = await search(ctx, f"{first} {second}", project=project.name)
    ctx.require(whole in ids_of(found), f"#{whole}, holding both words, found", found)
    ctx.expect(
        "SRCH-008",
        partial not in ids_of(found),
        expected=f"#{partial}, holding only {first}, not found by both words",
        observed=found,
    )


@check(rules=("SRCH-009",), tools=SEARCHING)
async def match_mode_any_or_all(ctx: MemContext) -> None:
    if await requirements_unmet(ctx, "SRCH-009"):
        return
    project = await fresh_project(ctx)
    first, second = ctx.unique("srchleft"), ctx.unique("srchright")
    only_first = await _sharing(ctx, project, "srchfirst", first)
    only_second = await _sharing(ctx, project, "srchsecond", second)
    both = await _sharing(ctx, project, "srchboth", f"{first} {second}")
    query, name = f"{first} {second}", project.name
    judged: tuple[tuple[str, set[MemoryId], set[MemoryId]], ...] = (
        ("any", {only_first, only_second, both}, set()),
        ("all", {both}, {only_first, only_second}),
    )
    for mode, wanted, unwanted in judged:
        found = await search(ctx, query, project=name, match_mode=mode)
        ids = set(ids_of(found))
        ctx.expect(
            "SRCH-009",
            wanted <= ids and not unwanted & ids,
            expected=f"match_mode {mode}: {sorted(wanted)} found, none of {sorted(unwanted)}",
            observed=found,
        )
    refused = await search(ctx, query, project=name, match_mode="most")
    ctx.expect(
        "SRCH-009",
        isinstance(refused, ToolFailure),
        expected="match_mode most answers isError",
        observed=refused,
    )


@check(rules=("SRCH-010",), tools=SEARCHING)
async def all_projects_searches_everywhere(ctx: MemContext) -> None:
    if await requirements_unmet(ctx, "SRCH-010"):
        return
    shared, (asked, mine), (_, theirs) = await _in_two_projects(ctx, "srchevery")
    found = await search(ctx, shared, project=asked.name, all_projects=True)
    ctx.expect(
        "SRCH-010",
        {mine, theirs} <= set(ids_of(found)),
        expected=f"all_projects true finds #{mine} and #{theirs}, whatever the project argument",
        observed=found,
    )


#: SRCH-011: memories of one repeated pair of words, and a long phrase of them
REPETITIVE_MEMORIES, REPETITIVE_CHARS, PHRASE_WORDS = 40, 50_000, 500


@check(rules=("SRCH-011",), tools=(SAVE, SEARCH), alone=True)
async def long_phrase_answers_in_time(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    body = "a b " * (REPETITIVE_CHARS // 4)
    for number in range(REPETITIVE_MEMORIES):
        await save(ctx, project, f"Repetitive {ctx.unique('repeated')} {number}", body)
    phrase = '"' + " ".join(["a", "b"] * (PHRASE_WORDS // 2)) + '"'
    arguments = {"query": phrase, "project": project.name}
    what = f"a phrase of {PHRASE_WORDS} words over {REPETITIVE_MEMORIES} repetitive memories"
    await expect_in_time(ctx, "SRCH-011", SEARCH, arguments, what)
