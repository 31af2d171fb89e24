"""Hash dedupe: the same content, title, type and project within the window is absorbed
(``duplicate_count`` + 1, ``last_seen_at`` updated), whatever the scope; the window is a serve
option."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from mcp import Client

from .servers import fresh, mem_stdio, observation, ok, save

pytestmark = pytest.mark.anyio

#: a dedupe window the test waits out
WINDOW_S = 2.0


async def test_a_repeat_in_the_window_is_a_duplicate(mem: Client) -> None:
    project = fresh()
    arguments = {"title": "Stripe retry", "type": "bugfix", "project": project}
    first = await save(mem, content="What: 3 s minimum delay", **arguments)
    before = await observation(mem, first)
    again = await save(mem, content="what:   3 S MINIMUM delay", **arguments)
    after = await observation(mem, first)
    assert again == first
    assert after["Duplicates"] == "2"
    assert after["Last seen"] > before["Last seen"]
    assert after["Revisions"] == "1"
    assert after["What"] == "3 s minimum delay"  # the content stays the first save's


@pytest.mark.parametrize(
    "change",
    [
        {"content": "What: another text"},
        {"title": "Stripe retry, again"},
        {"type": "decision"},
    ],
)
async def test_what_makes_a_save_another_memory(mem: Client, change: dict[str, str]) -> None:
    """Content, title, type and project: the seed's four."""
    arguments = {
        "title": "Stripe retry",
        "type": "bugfix",
        "content": "What: x",
        "project": fresh(),
    }
    first = await save(mem, **arguments)
    assert await save(mem, **{**arguments, **change}) != first


async def test_another_scope_is_a_duplicate_that_keeps_its_scope(mem: Client) -> None:
    """Upstream compares the scope too; the seed names four fields, and the scope is none."""
    arguments = {"title": "Stripe retry", "content": "What: x", "project": fresh()}
    first = await save(mem, **arguments)
    assert await save(mem, **arguments, scope="personal") == first
    fields = await observation(mem, first)
    assert (fields["Duplicates"], fields["Scope"]) == ("2", "project")
    personal = await save(mem, **{**arguments, "title": "Personal first"}, scope="personal")
    assert await save(mem, **{**arguments, "title": "Personal first"}) == personal
    assert (await observation(mem, personal))["Scope"] == "personal"


async def test_a_soft_deleted_memory_takes_no_part(mem: Client) -> None:
    arguments = {"title": "T", "content": "C", "project": fresh()}
    first = await save(mem, **arguments)
    await ok(mem, "mem_delete", id=first)
    assert await save(mem, **arguments) != first


async def test_another_project_is_another_memory(mem: Client) -> None:
    arguments = {"title": "T", "content": "C"}
    assert await save(mem, project=fresh(), **arguments) != await save(
        mem, project=fresh(), **arguments
    )


async def test_a_window_of_zero_never_dedupes(tmp_path: Path) -> None:
    async with mem_stdio(tmp_path, "--dedupe-window-s", "0") as client:
        arguments = {"title": "T", "content": "C", "project": "p"}
        assert await save(client, **arguments) != await save(client, **arguments)


async def test_after_the_window_a_repeat_is_new(tmp_path: Path) -> None:
    """The window is wide enough for the repeat within it to come in time on a loaded machine
    (0.3 s was not: two calls over stdio can take longer)."""
    async with mem_stdio(tmp_path, "--dedupe-window-s", str(WINDOW_S)) as client:
        arguments = {"title": "T", "content": "C", "project": "p"}
        first = await save(client, **arguments)
        assert await save(client, **arguments) == first
        time.sleep(WINDOW_S + 0.1)
        assert await save(client, **arguments) != first
