"""Scopes and projects: personal memories in every project's context, project isolation, and the
current project (the ``--project`` option, else the working folder's name)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from .servers import failed, fresh, mem_stdio, ok, save

pytestmark = pytest.mark.anyio


async def test_personal_memories_show_in_every_projects_context(mem: Client) -> None:
    word = fresh("async")
    await save(
        mem,
        title=f"Prefiero {word}",
        type="learning",
        content="async/await sobre Promises encadenadas",
        scope="personal",
        project=fresh(),
    )
    elsewhere = fresh()
    await save(mem, title="Other", content="project memory", project=elsewhere)
    assert word in await ok(mem, "mem_context", project=elsewhere)
    assert word in await ok(mem, "mem_context", project=fresh())
    assert word in await ok(mem, "mem_context", project=elsewhere, scope="personal")
    assert word not in await ok(mem, "mem_context", project=elsewhere, scope="project")


async def test_a_project_memory_stays_in_its_project(mem: Client) -> None:
    word, home, other = fresh("tok"), fresh(), fresh()
    await save(mem, title=f"Secret plan {word}", content=f"What: {word}", project=home)
    await save(mem, title="Unrelated", content="filler", project=other)
    assert word in await ok(mem, "mem_context", project=home)
    assert word not in await ok(mem, "mem_context", project=other)
    assert word in await ok(mem, "mem_search", query=word, project=home)
    nothing = await ok(mem, "mem_search", query=word, project=other)
    assert nothing == f'No memories found for: "{word}"'


async def test_scope_filters_search(mem: Client) -> None:
    word, project = fresh("w"), fresh()
    await save(mem, title=f"{word} one", content="project", project=project)
    await save(mem, title=f"{word} two", content="personal", project=project, scope="personal")
    assert "Found 2 memories" in await ok(mem, "mem_search", query=word, project=project)
    personal = await ok(mem, "mem_search", query=word, project=project, scope="personal")
    assert "Found 1 memories" in personal and "scope: personal" in personal
    scoped = await ok(mem, "mem_search", query=word, project=project, scope="project")
    assert "Found 1 memories" in scoped and "scope: project" in scoped


@pytest.mark.parametrize("tool", ["mem_save", "mem_search", "mem_context"])
async def test_a_scope_is_project_or_personal(mem: Client, tool: str) -> None:
    """Seed 003's two values, in any case; upstream stores any other value as project."""
    word, project = fresh("w"), fresh()
    arguments = {"title": word, "content": "C", "query": word, "project": project}
    message = await failed(mem, tool, **arguments, scope="team")
    assert message == "scope must be project or personal"
    nothing = await ok(mem, "mem_search", query=word, project=project)
    assert nothing.startswith("No memories found")
    await ok(mem, tool, **arguments, scope=" Personal ")


async def test_the_current_project_is_the_working_folders_name(tmp_path: Path) -> None:
    async with mem_stdio(tmp_path) as client:
        assert await ok(client, "mem_context") == "No previous session memories found."
        answer = json.loads(await ok(client, "mem_current_project"))
        work = str(tmp_path / "work")
        assert answer == {
            "project": "work",
            "project_source": "dir_basename",
            "project_path": work,
            "cwd": work,
            "available_projects": [],
        }
        memory = await save(client, title="Here", content="no project given")
        found = await ok(client, "mem_search", query="given")
        assert f"#{memory} " in found and "project: work" in found
        context = await ok(client, "mem_context")
        assert "no project given" in context
        await save(client, title="There", content="x", project="elsewhere")
        answer = json.loads(await ok(client, "mem_current_project"))
        assert answer["available_projects"] == ["elsewhere", "work"]
