"""Topic keys (TOPIC): upserts by topic_key and mem_suggest_topic_key's keys.

An upsert is judged where every version shows it: ``mem_search`` by a token both saves hold
finds one memory, and that memory read back (``steps.live``: ``mem_get_observation``, else its
search record) gives the later title, content and ``revision_count`` (``mem_save`` answers no id
at v1.7.0, so ids come from searches). Choices
worth knowing:

- ``revision_count`` is judged as the seed gives it, an increment: each check reads it after the
  first save and expects one more per revision (never an absolute first value).

- TOPIC-002 compares ``updated_at`` as timestamps (ISO 8601, with or without ``T``; else as the
  strings the server wrote). It waits a second between the saves only when the first stamp shows
  whole seconds, so a stamp of finer grain costs no wait.
- TOPIC-005 reads the suggestion's human text (the ``result`` of a JSON-in-text answer): the
  bare key, quoted or not, is the seed's answer.
- Every suggestion check asks about its own inputs, so that a server whose suggestions change
  from one call to the next is caught by TOPIC-008 alone (which asks twice).
- TOPIC-010 makes every save differ in title and content, so no dedupe (DEDUP-004) absorbs one.
"""

from __future__ import annotations

import re

from ..answer_text import unpack
from ..facts import Fact, MemoryId, Observation, Suggestion, ToolFailure
from . import steps
from .context import MemContext
from .registry import check
from .steps import Project
from .times import instant

SAVE, SEARCH, SUGGEST = "mem_save", "mem_search", "mem_suggest_topic_key"
#: TOPIC-003: seed 003's worked example, its key and its two saves (title, content)
SEED_KEY = "architecture/auth-middleware-design"
SEED_SAVES = (
    (
        "Auth middleware: JWT validation strategy",
        "What: Usamos JWT con RS256 y validación en middleware...",
    ),
    (
        "Auth middleware: migración a session tokens",
        "What: Migramos de JWT RS256 a session tokens HTTP-only...",
    ),
)
SEED_SEARCH = "middleware"
#: TOPIC-004/005: the seed's suggestion call and its answer
SEED_SUGGESTION = {"type": "architecture", "title": "Auth middleware design"}
#: TOPIC-006: type -> the family its suggestions have, asked with a title of no family's words
TYPE_FAMILIES = {
    "architecture": "architecture",
    "bugfix": "bug",
    **{name: name for name in ("decision", "pattern", "config", "discovery", "learning")},
}
NEUTRAL_TITLE = "Widget totals"
#: TOPIC-007: suggestions whose family the text names
TEXT_FAMILIES = (
    ({"type": "manual", "title": "Fix crash on empty token"}, "bug"),
    ({"title": "ADR: split the API gateway"}, "architecture"),
)
#: TOPIC-008: inputs whose key is the type's family and the title's words, lowercased
SLUGGED = (("decision", "Queue Retry Budget"), ("pattern", "Cache warmup on Deploy"))
#: TOPIC-012: two spellings of one key
KEY_SPELLINGS = ("ARCHITECTURE   AUTH  MODEL", "architecture auth model")
#: TOPIC-014: inputs that hit none of the seed's families
UNFAMILIAR = (
    {"type": "Custom Type", "title": "Widget totals"},
    {"type": "manual", "title": "Widget totals, Q3!"},
    {"title": "!!!", "content": "..."},
)
KEY_FORM = re.compile(r"[a-z0-9-]+/[a-z0-9-]+")
#: a stamp of whole seconds: no fraction (no ``.``), its seconds last but for a zone
WHOLE_SECONDS = re.compile(r"[^.]*:\d\d(Z|[+-]\d\d:?\d\d)?")


async def suggestion(ctx: MemContext, arguments: dict[str, str]) -> Suggestion | ToolFailure:
    found = await steps.fact(ctx, SUGGEST, arguments)
    ctx.require(isinstance(found, Suggestion | ToolFailure), "mem_suggest_topic_key read", found)
    assert isinstance(found, Suggestion | ToolFailure)
    return found


def key_of(found: Fact) -> str | None:
    return found.topic_key if isinstance(found, Suggestion) else None


def family_of(key: str | None) -> str | None:
    return key.split("/", 1)[0] if key is not None else None


async def first_save(ctx: MemContext, project: Project, token: str, key: str) -> MemoryId:
    """The id of a topic's first save under ``key`` (``version_of`` its title and content)."""
    title, content = version_of(token, 1)
    extra = {"title": title, "content": content, "topic_key": key}
    return await steps.saved_memory(ctx, project, token, "decision", **extra)


async def next_save(ctx: MemContext, project: Project, token: str, key: str, version: int) -> None:
    await steps.save(ctx, project, *version_of(token, version), "decision", topic_key=key)


def version_of(token: str, version: int) -> tuple[str, str]:
    """The title and content of a topic's ``version``-th save."""
    what = f"version {version} of the topic"
    return f"Topic {token} version {version}", steps.what_why(token, what)


async def revisions(ctx: MemContext, memory_id: MemoryId) -> int:
    """The revision_count ``memory_id`` shows now: the start the seed's increments count from
    (it gives no first value)."""
    count = (await read_revised(ctx, memory_id)).revision_count
    assert count is not None
    return count


async def read_revised(ctx: MemContext, memory_id: MemoryId, *needs: str) -> Observation:
    """Memory ``memory_id`` read back, showing its revision_count (and ``needs``)."""
    return await steps.live(ctx, memory_id, "revision_count", *needs)


def expect_one_revised(
    ctx: MemContext,
    rule: str,
    found: list[MemoryId],
    memory: Observation,
    base: int,
    revised: int,
) -> None:
    """``found`` is ``memory`` alone, and its revision_count is ``revised`` more than the
    ``base`` it showed after its first save."""
    ctx.expect(
        rule,
        found == [memory.id],
        expected=f"one memory, #{memory.id}, holds the topic",
        observed=found,
    )
    ctx.expect(
        rule,
        memory.revision_count == base + revised,
        expected=f"revision_count {base + revised} ({revised} more than after the first save)",
        observed=memory.revision_count,
    )


@check(rules=("TOPIC-001",), tools=(SAVE, SEARCH))
async def topic_key_upserts(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    token = ctx.unique("topic")
    key = f"conformance/{token}"
    first_id = await first_save(ctx, project, token, key)
    base = await revisions(ctx, first_id)
    for versions in (2, 3):
        await next_save(ctx, project, token, key, versions)
        found = await steps.found_ids(ctx, token, project=project.name)
        memory = await read_revised(ctx, first_id, "title", "content")
        expect_one_revised(ctx, "TOPIC-001", found, memory, base, versions - 1)
        title, content = version_of(token, versions)
        ctx.expect(
            "TOPIC-001",
            (memory.title, memory.content) == (title, content),
            expected=f"the title and content of save {versions}: {title!r}",
            observed=memory,
        )


def later(after: str, before: str) -> bool:
    """Whether stamp ``after`` is later than ``before``: as times where both read as ISO 8601
    (and agree on having a zone), else as the strings the server wrote."""
    first, second = instant(before), instant(after)
    if first is not None and second is not None:
        return (second.tzinfo is None) == (first.tzinfo is None) and second > first
    return after > before


@check(rules=("TOPIC-002",), tools=(SAVE, SEARCH), waits=True)
async def upsert_moves_updated_at(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    token = ctx.unique("stamped")
    key = f"conformance/{token}"
    memory_id = await first_save(ctx, project, token, key)
    before = (await steps.live(ctx, memory_id, "updated_at")).updated_at
    assert before is not None
    if WHOLE_SECONDS.fullmatch(before):
        await ctx.wait(1.1)
    await next_save(ctx, project, token, key, 2)
    after = (await steps.live(ctx, memory_id)).updated_at
    ctx.expect(
        "TOPIC-002",
        after is not None and later(after, before),
        expected=f"updated_at later than {before} after the upsert",
        observed=after,
    )


@check(rules=("TOPIC-003",), tools=(SAVE, SEARCH))
async def seed_topic_example(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    (first_title, first_content), (title, content) = SEED_SAVES
    await steps.save(ctx, project, first_title, first_content, "architecture", topic_key=SEED_KEY)
    saved = await steps.search(ctx, SEED_SEARCH, project=project.name)
    ctx.require(len(steps.ids_of(saved)) == 1, "the first save found", saved)
    base = await revisions(ctx, steps.ids_of(saved)[0])
    await steps.save(ctx, project, title, content, "architecture", topic_key=SEED_KEY)
    found = await steps.search(ctx, SEED_SEARCH, project=project.name)
    ctx.expect(
        "TOPIC-003",
        steps.titles(found) == [title],
        expected=f"mem_search {SEED_SEARCH!r} finds one memory, titled {title!r}",
        observed=found,
    )
    ids = found.ids if not isinstance(found, ToolFailure) else []
    ctx.require(len(ids) >= 1, "the topic's memory found", found)
    memory = await read_revised(ctx, ids[0], "content")
    ctx.expect(
        "TOPIC-003",
        (memory.content, memory.revision_count) == (content, base + 1),
        expected=f"the second content, {content!r}, and revision_count {base + 1} (one more "
        "than after the first save)",
        observed=memory,
    )


@check(rules=("TOPIC-004", "TOPIC-005"), tools=(SUGGEST,))
async def seed_suggestion(ctx: MemContext) -> None:
    """One call for both rules: TOPIC-004 reads the key out of the answer, TOPIC-005 asks for
    nothing but the key."""
    answer, found = await steps.read_answer(ctx, SUGGEST, SEED_SUGGESTION)
    ctx.expect(
        "TOPIC-004",
        key_of(found) == SEED_KEY,
        expected=f"the key {SEED_KEY}",
        observed=found,
    )
    ctx.require(isinstance(found, Suggestion), "a suggestion", found)
    assert isinstance(found, Suggestion)
    if not answer.text and answer.structured is not None:
        ctx.undecided("TOPIC-005 judges the answer's text, and it has none", rules=("TOPIC-005",))
    text = unpack(SUGGEST, answer.text or "").text or ""
    ctx.expect(
        "TOPIC-005",
        text.strip().strip('"') == found.topic_key,
        expected="the bare key as the whole answer",
        observed=text or answer.text,
    )


@check(rules=("TOPIC-006",), tools=(SUGGEST,))
async def family_follows_the_type(ctx: MemContext) -> None:
    for memory_type, family in TYPE_FAMILIES.items():
        found = await suggestion(ctx, {"type": memory_type, "title": NEUTRAL_TITLE})
        ctx.expect(
            "TOPIC-006",
            family_of(key_of(found)) == family,
            expected=f"type {memory_type} suggests {family}/…",
            observed=found,
        )


@check(rules=("TOPIC-007",), tools=(SUGGEST,))
async def family_follows_the_text(ctx: MemContext) -> None:
    for arguments, family in TEXT_FAMILIES:
        found = await suggestion(ctx, arguments)
        ctx.expect(
            "TOPIC-007",
            family_of(key_of(found)) == family,
            expected=f"{arguments} suggests {family}/…",
            observed=found,
        )


@check(rules=("TOPIC-008",), tools=(SUGGEST,))
async def suggestions_are_normalised(ctx: MemContext) -> None:
    for memory_type, title in SLUGGED:
        arguments = {"type": memory_type, "title": title}
        wanted = f"{TYPE_FAMILIES[memory_type]}/{'-'.join(title.lower().split())}"
        keys = [key_of(await suggestion(ctx, arguments)) for _ in range(2)]
        ctx.expect(
            "TOPIC-008",
            keys == [wanted, wanted],
            expected=f"{arguments} suggests {wanted}, each time",
            observed=keys,
        )


@check(rules=("TOPIC-009",), tools=(SUGGEST, SAVE, SEARCH))
async def suggested_key_flow(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    token = ctx.unique("flow")
    found = await suggestion(ctx, {"type": "decision", "title": f"Topic {token}"})
    ctx.require(isinstance(found, Suggestion), "a suggested key", found)
    assert isinstance(found, Suggestion)
    first_id = await first_save(ctx, project, token, found.topic_key)
    base = await revisions(ctx, first_id)
    await next_save(ctx, project, token, found.topic_key, 2)
    ids = await steps.found_ids(ctx, token, project=project.name)
    expect_one_revised(ctx, "TOPIC-009", ids, await read_revised(ctx, first_id), base, 1)


async def placed(
    ctx: MemContext, project: Project, key: str, **where: str
) -> tuple[Project, str, str, int | None]:
    """TOPIC-010: a save under ``key`` in ``project`` (``where``: its scope), of a title and
    content of its own; the project, the save's token, its title and the revision_count it
    showed right after (``None``: not exactly one memory found by the token then)."""
    token = ctx.unique("placed")
    title = f"Placed {token}"
    await steps.save(ctx, project, title, steps.what_why(token), "decision", topic_key=key, **where)
    found = await steps.found_ids(ctx, token, project=project.name)
    base = await revisions(ctx, found[0]) if len(found) == 1 else None
    return project, token, title, base


@check(rules=("TOPIC-010",), tools=(SAVE, SEARCH))
async def topics_are_kept_apart(ctx: MemContext) -> None:
    home, other = await steps.fresh_project(ctx), await steps.fresh_project(ctx)
    key = f"conformance/{ctx.unique('apart')}"
    saves = [
        await placed(ctx, home, key),
        await placed(ctx, home, key, scope="personal"),
        await placed(ctx, other, key),
        await placed(ctx, home, f"{key}-other"),
    ]
    held: list[MemoryId] = []
    for project, token, title, base in saves:
        found = await steps.found_ids(ctx, token, project=project.name)
        ctx.expect(
            "TOPIC-010",
            len(found) == 1,
            expected=f"one memory of its own for {title!r}",
            observed=found,
        )
        held += found
        for memory_id in found:
            memory = await steps.live(ctx, memory_id, "title")
            ctx.expect(
                "TOPIC-010",
                memory.title == title and base in (None, memory.revision_count),
                expected=f"#{memory_id} still {title!r}, never revised",
                observed=memory,
            )
    ctx.expect(
        "TOPIC-010",
        len(set(held)) == len(held),
        expected="four memories, one per save",
        observed=held,
    )


@check(rules=("TOPIC-012",), tools=(SAVE, SEARCH))
async def key_is_normalised_before_matching(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    token = ctx.unique("spelled")
    shouted, plain = KEY_SPELLINGS
    first_id = await first_save(ctx, project, token, shouted)
    base = await revisions(ctx, first_id)
    await next_save(ctx, project, token, plain, 2)
    found = await steps.found_ids(ctx, token, project=project.name)
    expect_one_revised(ctx, "TOPIC-012", found, await read_revised(ctx, first_id), base, 1)


@check(rules=("TOPIC-013",), tools=(SUGGEST,))
async def suggestion_needs_a_text(ctx: MemContext) -> None:
    found = await suggestion(ctx, {"type": "architecture"})
    ctx.expect(
        "TOPIC-013",
        isinstance(found, ToolFailure),
        expected="isError for a suggestion with neither title nor content",
        observed=found,
    )


@check(rules=("TOPIC-014",), tools=(SUGGEST,))
async def every_suggestion_has_the_form(ctx: MemContext) -> None:
    for arguments in UNFAMILIAR:
        key = key_of(await suggestion(ctx, arguments))
        ctx.expect(
            "TOPIC-014",
            key is not None and KEY_FORM.fullmatch(key) is not None,
            expected=f"{arguments} suggests family/slug of [a-z0-9-]",
            observed=key,
        )
