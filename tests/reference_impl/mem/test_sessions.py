"""The session cycle: start (the caller's id, or a generated one), summary (what mem_context
shows first), end; writes belong to the session they name (which must exist), else to the
project's latest active one; prompts and the timeline of a session."""

from __future__ import annotations

import re

import pytest
from mcp import Client

from .servers import failed, fresh, observation, ok, save

pytestmark = pytest.mark.anyio

SUMMARY = """Goal: migrate auth to session tokens
Discoveries: JWT refresh raced with logout
Accomplished: middleware rewritten
Files: src/auth/middleware.ts"""


async def test_start_with_the_callers_id(mem: Client) -> None:
    session, project = fresh("s"), fresh()
    answer = await ok(mem, "mem_session_start", id=session, project=project, directory="/src")
    assert answer == f'Session "{session}" started for project "{project}"'


async def test_start_without_an_id_generates_one(mem: Client) -> None:
    project = fresh()
    first = await ok(mem, "mem_session_start", project=project)
    second = await ok(mem, "mem_session_start", project=project)
    pattern = rf'^Session "(session-[0-9a-f]{{16}})" started for project "{project}"$'
    ids = [re.fullmatch(pattern, answer) for answer in (first, second)]
    assert all(ids) and ids[0].group(1) != ids[1].group(1)  # type: ignore[union-attr]


async def test_the_summary_is_what_context_shows_first(mem: Client) -> None:
    project, session = fresh(), fresh("s")
    await ok(mem, "mem_session_start", id=session, project=project)
    await save(mem, title="Earlier work", content="What: middleware", project=project)
    answer = await ok(mem, "mem_session_summary", content=SUMMARY, project=project)
    assert answer == f'Session summary saved for project "{project}"'
    await save(mem, title="Later work", content="What: after the summary", project=project)
    context = await ok(mem, "mem_context", project=project)
    assert context.startswith("## Memory from Previous Sessions")
    summary_at = context.index("Goal: migrate auth to session tokens")
    assert summary_at < context.index("Later work") and summary_at < context.index("Earlier work")
    assert "Files: src/auth/middleware.ts" in context  # whole, not cut
    found = await ok(
        mem, "mem_search", query="Discoveries", project=project, type="session_summary"
    )
    assert f"Session summary: {project}" in found


async def test_the_latest_summary_comes_first(mem: Client) -> None:
    project = fresh()
    await ok(mem, "mem_session_summary", content="Goal: the first", project=project)
    await ok(mem, "mem_session_summary", content="Goal: the second", project=project)
    context = await ok(mem, "mem_context", project=project)
    assert context.index("Goal: the second") < context.index("Goal: the first")


async def test_end(mem: Client) -> None:
    project, session = fresh(), fresh("s")
    await ok(mem, "mem_session_start", id=session, project=project)
    memory = await save(mem, title="Work", content="done", project=project, session_id=session)
    answer = await ok(mem, "mem_session_end", id=session, summary="Rewrote the middleware")
    assert answer == f'Session "{session}" completed'
    context = await ok(mem, "mem_context", project=project)
    assert (
        f"- **{project}** (" in context and ": Rewrote the middleware [1 observations]" in context
    )
    assert "Rewrote the middleware" in await ok(mem, "mem_timeline", observation_id=memory)


async def test_ending_an_unknown_session_fails(mem: Client) -> None:
    session = fresh("s")
    assert await failed(mem, "mem_session_end", id=session) == f'Session "{session}" not found'
    assert await failed(mem, "mem_session_end") == "id is required"


async def test_prompts_show_in_context(mem: Client) -> None:
    project = fresh()
    long_prompt = "Please make the retry logic respect Stripe's rate limits " * 3
    answer = await ok(mem, "mem_save_prompt", content=long_prompt, project=project)
    assert answer == f'Prompt saved: "{long_prompt[:80]}..."'
    context = await ok(mem, "mem_context", project=project)
    assert "### Recent User Prompts" in context and "respect Stripe's rate limits" in context


async def test_a_write_without_a_session_joins_the_latest_active_one(mem: Client) -> None:
    project, older, newer = fresh(), fresh("s"), fresh("s")
    before = await save(mem, title="Before", content="no session yet", project=project)
    await ok(mem, "mem_session_start", id=older, project=project)
    await ok(mem, "mem_session_start", id=newer, project=project)
    await ok(mem, "mem_session_start", id=fresh("s"), project=fresh())  # another project's
    during = await save(mem, title="During", content="in the session", project=project)
    await ok(mem, "mem_session_end", id=newer)
    after_one = await save(mem, title="After one", content="back to the older", project=project)
    await ok(mem, "mem_session_end", id=older)
    after_all = await save(mem, title="After all", content="no session left", project=project)
    sessions = [(await observation(mem, memory))["Session"] for memory in (before, during)]
    sessions += [(await observation(mem, memory))["Session"] for memory in (after_one, after_all)]
    default = f"manual-save-{project}"
    assert sessions == [default, newer, older, default]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("mem_save", {"title": "T", "content": "Unwritten"}),
        ("mem_save_prompt", {"content": "Unwritten prompt"}),
        ("mem_session_summary", {"content": "Goal: Unwritten"}),
    ],
)
async def test_a_session_no_one_started_is_refused(
    mem: Client, tool: str, arguments: dict[str, str]
) -> None:
    """Upstream v1.7.0 made the session instead; v1.20 refuses it too."""
    project, session = fresh(), fresh("s")
    message = await failed(mem, tool, **arguments, session_id=session, project=project)
    assert message == f'Session "{session}" not found'
    context = await ok(mem, "mem_context", project=project)
    assert "Unwritten" not in context and "### Recent Sessions" not in context


async def test_the_timeline_of_a_session(mem: Client) -> None:
    project, session = fresh(), fresh("s")
    await ok(mem, "mem_session_start", id=session, project=project)
    ids = [
        await save(mem, title=f"Step {n}", content=f"c{n}", project=project, session_id=session)
        for n in range(5)
    ]
    await ok(mem, "mem_session_end", id=session)
    await save(mem, title="Elsewhere", content="other session", project=project)
    timeline = await ok(mem, "mem_timeline", observation_id=ids[2], before=1, after=5)
    assert f"Session: {project} (" in timeline
    assert "Total observations in session: 5" in timeline
    assert f">>> #{ids[2]} [manual] Step 2 <<<" in timeline
    before, after = timeline.split(">>>")
    assert f"#{ids[1]} " in before and f"#{ids[0]} " not in before
    assert f"#{ids[3]} " in after and f"#{ids[4]} " in after and "Elsewhere" not in after
    assert "─── Before ───" in before and "─── After ───" in after


async def test_a_write_never_joins_another_projects_session(mem: Client) -> None:
    """Issue 23, item 5: B's save in A's session put it in A's timeline, and A's text in B's."""
    home, other, session = fresh(), fresh(), fresh("s")
    await ok(mem, "mem_session_start", id=session, project=home)
    mine = await save(
        mem, title="Home work", content="home secret", project=home, session_id=session
    )
    refused = f'Session "{session}" is not a session of project "{other}"'
    for tool, arguments in [
        ("mem_save", {"title": "Intruder", "content": "Unwritten"}),
        ("mem_save_prompt", {"content": "Unwritten prompt"}),
        ("mem_session_summary", {"content": "Goal: Unwritten"}),
        ("mem_capture_passive", {"content": "ERROR: Unwritten, the pool is exhausted"}),
    ]:
        assert await failed(mem, tool, **arguments, session_id=session, project=other) == refused
    assert "Unwritten" not in await ok(mem, "mem_timeline", observation_id=mine)
    assert "Unwritten" not in await ok(mem, "mem_context", project=home)


async def test_a_session_is_not_started_again_for_another_project(mem: Client) -> None:
    home, other, session = fresh(), fresh(), fresh("s")
    await ok(mem, "mem_session_start", id=session, project=home)
    message = await failed(mem, "mem_session_start", id=session, project=other)
    assert message == f'Session "{session}" is not a session of project "{other}"'
    again = await ok(mem, "mem_session_start", id=session, project=home)
    assert again == f'Session "{session}" started for project "{home}"'
    memory = await save(mem, title="T", content="C", project=home)
    assert (await observation(mem, memory))["Session"] == session


async def test_a_session_end_that_names_another_project_ends_nothing(mem: Client) -> None:
    """Attack round 4: mem_session_end with project B ended A's session, and its summary showed
    in A's context."""
    home, other, session = fresh(), fresh(), fresh("s")
    await ok(mem, "mem_session_start", id=session, project=home)
    message = await failed(
        mem, "mem_session_end", id=session, project=other, summary="INJECTED by the other"
    )
    assert message == f'Session "{session}" is not a session of project "{other}"'
    assert "INJECTED" not in await ok(mem, "mem_context", project=home)
    done = await ok(mem, "mem_session_end", id=session, project=home, summary="Closed at home")
    assert done == f'Session "{session}" completed'


async def test_a_projects_default_session_cannot_be_taken_over(mem: Client) -> None:
    victim, intruder = fresh(), fresh()
    default = f"manual-save-{victim}"
    message = await failed(mem, "mem_session_start", id=default, project=intruder)
    assert message == (
        "session ids beginning with manual-save- name a project's default session, which is "
        "neither started nor ended: choose another id"
    )
    memory = await save(mem, title="Victim's", content="private work", project=victim)
    assert await failed(mem, "mem_session_end", id=default, summary="Intruder's") == message
    assert (await observation(mem, memory))["Session"] == default
    timeline = await ok(mem, "mem_timeline", observation_id=memory)
    assert timeline.startswith(f"Session: {victim} (") and "Intruder" not in timeline


async def test_a_memory_moved_to_another_project_leaves_its_session(mem: Client) -> None:
    home, other, session = fresh(), fresh(), fresh("s")
    await ok(mem, "mem_session_start", id=session, project=home)
    await save(mem, title="Stays home", content="home text", project=home, session_id=session)
    moved = await save(mem, title="Moves", content="moving", project=home, session_id=session)
    await ok(mem, "mem_update", id=moved, project=other)
    assert (await observation(mem, moved))["Session"] == f"manual-save-{other}"
    timeline = await ok(mem, "mem_timeline", observation_id=moved)
    assert "home text" not in timeline and timeline.startswith(f"Session: {other} (")
