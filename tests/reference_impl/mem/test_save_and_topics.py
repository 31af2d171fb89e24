"""mem_save, topic keys (suggestion and upsert) and mem_update, over stdio."""

from __future__ import annotations

import pytest
from mcp import Client

from .servers import failed, fresh, observation, ok, save

pytestmark = pytest.mark.anyio


async def test_the_seeds_worked_example_of_a_suggestion(mem: Client) -> None:
    """The answer is the bare key, as the seed shows it (upstream labels it)."""
    answer = await ok(
        mem, "mem_suggest_topic_key", type="architecture", title="Auth middleware design"
    )
    assert answer == "architecture/auth-middleware-design"


@pytest.mark.parametrize(
    ("arguments", "key"),
    [
        ({"type": "bugfix", "title": "Stripe retry 429"}, "bug/stripe-retry-429"),
        ({"type": "decision", "title": "Event sourcing"}, "decision/event-sourcing"),
        ({"type": "pattern", "title": "Repository layer"}, "pattern/repository-layer"),
        ({"type": "config", "title": "Stripe YAML"}, "config/stripe-yaml"),
        ({"type": "discovery", "title": "Pool exhaustion"}, "discovery/pool-exhaustion"),
        ({"type": "learning", "title": "Prefer async"}, "learning/prefer-async"),
        ({"title": "Fix nil panic in auth"}, "bug/fix-nil-panic-in-auth"),
        ({"type": "decision", "title": "decision"}, "decision/decision"),
        ({"type": "bugfix", "title": "Bug in parser"}, "bug/bug-in-parser"),
        (
            {"type": "manual", "title": "ADR: split the API gateway"},
            "architecture/adr-split-the-api-gateway",
        ),
        ({"title": "<private>sk_live_1</private> rotation"}, "topic/redacted-rotation"),
        ({"type": "manual", "title": "!!!", "content": "..."}, "topic/general"),
        (
            {"type": "architecture", "title": "Migración a tokens"},
            "architecture/migracion-a-tokens",
        ),
    ],
)
async def test_suggested_families(mem: Client, arguments: dict[str, str], key: str) -> None:
    """The family from the type, else the text; the slug is every word of the title."""
    assert await ok(mem, "mem_suggest_topic_key", **arguments) == key


async def test_a_suggestion_needs_a_title_or_a_content(mem: Client) -> None:
    assert "title or content" in await failed(mem, "mem_suggest_topic_key", type="bugfix")


async def test_a_save_answers_v1_text_with_a_suggestion_and_the_id(mem: Client) -> None:
    answer = await ok(
        mem,
        "mem_save",
        title="Auth architecture",
        type="architecture",
        content="What: JWT",
        project=fresh(),
    )
    first, suggestion, identity = answer.splitlines()
    assert first == 'Memory saved: "Auth architecture" (architecture)'
    assert suggestion == "Suggested topic_key: architecture/auth-architecture"
    assert identity.startswith("ID: ")


async def test_a_save_with_a_topic_key_suggests_none(mem: Client) -> None:
    answer = await ok(
        mem, "mem_save", title="T", content="C", topic_key="decision/x", project=fresh()
    )
    assert "Suggested topic_key" not in answer


async def test_defaults_type_manual_scope_project_and_a_project_session(mem: Client) -> None:
    project = fresh()
    fields = await observation(mem, await save(mem, title="T", content="C", project=project))
    assert fields["heading"].startswith("#") and "[manual] T" in fields["heading"]
    assert fields["Scope"] == "project"
    assert fields["Project"] == project
    assert fields["Session"] == f"manual-save-{project}"
    assert fields["Duplicates"] == fields["Revisions"] == "1"


async def test_without_a_topic_key_every_save_is_new(mem: Client) -> None:
    project = fresh()
    first = await save(mem, title="Bug one", type="bugfix", content="What: a", project=project)
    second = await save(mem, title="Bug two", type="bugfix", content="What: b", project=project)
    assert first != second


async def test_the_same_topic_key_revises_the_memory(mem: Client) -> None:
    """Seed 003's three steps: the second save of the key updates the first."""
    project = fresh()
    key = "architecture/auth-middleware-design"
    first = await save(
        mem,
        title="Auth middleware: JWT validation strategy",
        type="architecture",
        content="What: Usamos JWT con RS256",
        topic_key=key,
        project=project,
    )
    before = await observation(mem, first)
    second = await save(
        mem,
        title="Auth middleware: migración a session tokens",
        type="architecture",
        content="What: Migramos de JWT RS256 a session tokens HTTP-only",
        topic_key=key,
        project=project,
    )
    after = await observation(mem, first)
    assert second == first
    assert after["Revisions"] == "2"
    assert after["Updated"] > before["Updated"]
    assert after["Created"] == before["Created"]
    assert after["Topic"] == key
    assert "migración a session tokens" in after["heading"]
    found = await ok(mem, "mem_search", query="RS256", project=project)
    assert found.startswith("Found 1 memories:")


async def test_topic_keys_are_normalised(mem: Client) -> None:
    project = fresh()
    first = await save(mem, title="A", content="one", topic_key="Auth  Model", project=project)
    second = await save(mem, title="A", content="two", topic_key="  auth model", project=project)
    # attack round 5: fullwidth letters and a zero width space made another live key
    third = await save(
        mem, title="A", content="three", topic_key="\uff41uth model\u200b", project=project
    )
    assert first == second == third
    assert (await observation(mem, first))["Topic"] == "auth-model"


@pytest.mark.parametrize("name", ["project", "topic_key", "session_id"])
async def test_a_name_holding_a_control_character_is_refused(mem: Client, name: str) -> None:
    """Attack round 5: a project named NUL was stored, and listed raw."""
    arguments = {"title": "T", "content": "C", name: "a\u0000b"}
    assert await failed(mem, "mem_save", **arguments) == f"{name} must not hold control characters"


async def test_a_topic_key_is_per_project_and_per_scope(mem: Client) -> None:
    key = "decision/db"
    one, other = fresh(), fresh()
    first = await save(mem, title="DB", content="sqlite", topic_key=key, project=one)
    in_other = await save(mem, title="DB", content="postgres", topic_key=key, project=other)
    personal = await save(
        mem, title="DB", content="duckdb", topic_key=key, project=one, scope="personal"
    )
    assert len({first, in_other, personal}) == 3


async def test_a_topic_save_that_repeats_another_scopes_memory_is_its_duplicate(
    mem: Client,
) -> None:
    """Dedupe compares content, title, type and project, whatever the key's scope."""
    arguments = {"title": "DB", "content": "sqlite", "topic_key": "decision/db", "project": fresh()}
    first = await save(mem, **arguments)
    assert await save(mem, **arguments, scope="personal") == first
    fields = await observation(mem, first)
    assert (fields["Scope"], fields["Duplicates"]) == ("project", "2")


async def test_repeating_a_topic_save_is_a_duplicate_not_a_revision(mem: Client) -> None:
    project = fresh()
    arguments = {"title": "K", "content": "same", "topic_key": "pattern/k", "project": project}
    first = await save(mem, **arguments)
    assert await save(mem, **arguments) == first
    fields = await observation(mem, first)
    assert (fields["Revisions"], fields["Duplicates"]) == ("1", "2")


async def test_update_changes_the_given_fields(mem: Client) -> None:
    project = fresh()
    memory = await save(mem, title="Old", type="bugfix", content="old text", project=project)
    before = await observation(mem, memory)
    answer = await ok(
        mem, "mem_update", id=memory, title="Nuevo título", content="Contenido actualizado"
    )
    assert answer == f'Memory updated: #{memory} "Nuevo título" (bugfix, scope=project)'
    after = await observation(mem, memory)
    assert after["heading"] == f"#{memory} [bugfix] Nuevo título"
    assert after["Revisions"] == "2"
    assert after["Updated"] > before["Updated"]
    assert "Contenido actualizado" in await ok(
        mem, "mem_search", query="actualizado", project=project
    )
    assert (await ok(mem, "mem_search", query="old", project=project)).startswith("No memories")


async def test_update_of_scope_and_topic_key(mem: Client) -> None:
    memory = await save(mem, title="T", content="C", topic_key="x/y", project=fresh())
    answer = await ok(mem, "mem_update", id=memory, scope="PERSONAL", topic_key="")
    assert answer.endswith("scope=personal)")
    assert "Topic" not in await observation(mem, memory)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "id is required"),
        ({"id": 1}, "provide at least one field to update"),
        ({"id": 9_000_000_000, "title": "x"}, "Observation #9000000000 not found"),
        ({"id": 1, "title": "   "}, "title must not be empty"),
        ({"id": 1, "project": ""}, "project must not be empty"),
        ({"id": 1, "scope": " "}, "scope must not be empty"),
        ({"id": 1, "scope": "team"}, "scope must be project or personal"),
    ],
)
async def test_update_errors(mem: Client, arguments: dict[str, object], message: str) -> None:
    await save(mem, title="T", content="C", project=fresh())  # so that id 1 exists
    assert await failed(mem, "mem_update", **arguments) == message


@pytest.mark.parametrize("missing", ["title", "content"])
async def test_a_save_needs_a_title_and_a_content(mem: Client, missing: str) -> None:
    arguments = {"title": "T", "content": "C", "project": fresh()}
    arguments[missing] = " "
    assert await failed(mem, "mem_save", **arguments) == f"{missing} is required"


async def test_an_update_never_gives_two_memories_one_topic_key(mem: Client) -> None:
    """Issue 23, item 7: the key's next save would have had two memories to revise."""
    project = fresh()
    holder = await save(mem, title="Holder", content="first", topic_key="x/held", project=project)
    other = await save(mem, title="Other", content="second", project=project)
    refused = (
        f'topic_key "x/held" already names memory #{holder} of that project and scope: '
        "update that memory, or choose another key"
    )
    assert await failed(mem, "mem_update", id=other, topic_key="X/Held") == refused
    personal = await save(
        mem, title="P", content="third", topic_key="x/held", scope="personal", project=project
    )
    assert await failed(mem, "mem_update", id=personal, scope="project") == refused
    elsewhere = await save(mem, title="E", content="4th", topic_key="x/held", project=fresh())
    assert await failed(mem, "mem_update", id=elsewhere, project=project) == refused
    await ok(mem, "mem_update", id=holder, topic_key="x/held", title="Holder again")
    assert (
        await save(mem, title="Rev", content="fifth", topic_key="x/held", project=project) == holder
    )


async def test_a_project_argument_is_normalised_as_the_current_project(mem: Client) -> None:
    project = fresh()
    mixed = f"  {project.upper()} "
    memory = await save(mem, title="Mixed case", content="normalised", project=mixed)
    assert (await observation(mem, memory))["Project"] == project
    assert f"#{memory} " in await ok(mem, "mem_search", query="normalised", project=project)
    other = fresh()
    await ok(mem, "mem_update", id=memory, project=other.upper())
    assert (await observation(mem, memory))["Project"] == other


async def test_every_spelling_of_a_project_is_one_project(mem: Client) -> None:
    """Attack round 4: spaces, a no-break space, fullwidth letters and a zero width space made
    five projects of one."""
    head, tail = fresh(), fresh()
    plain = f"{head} {tail}"
    spellings = [
        f"{head}  {tail}",
        f"{head}\u00a0{tail}",
        f"{head.upper()} {tail}".translate(
            {ord(c): ord(c) + 0xFEE0 for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
        ),
        f"{head} {tail}\u200b",
    ]
    for number, spelling in enumerate(spellings):
        memory = await save(mem, title=f"Spelling {number}", content="spelled", project=spelling)
        assert (await observation(mem, memory))["Project"] == plain, spelling


@pytest.mark.parametrize("blank", ["\u200b\u200b", " \u00ad\ufeff\n", "\u2060"])
async def test_a_content_a_reader_sees_nothing_of_is_absent(mem: Client, blank: str) -> None:
    """Attack round 6: a content of zero width spaces was saved as a memory."""
    assert await failed(mem, "mem_save", title="T", content=blank) == "content is required"
    assert await failed(mem, "mem_save", title=blank, content="C") == "title is required"
