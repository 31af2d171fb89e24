"""Replaying a mem transcript: the ids the server issues anew are mapped (in later calls'
arguments and in the answers compared), the times it writes are masked, and what really differs
still shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from engram_conformance.conformance.mem.plugin import CONTRACT
from engram_conformance.conformance.mem.transcript_replay import IssuedIds, masked_times
from engram_conformance.conformance.observation import Observation
from engram_conformance.conformance.session import Session
from engram_conformance.conformance.targets.launch import InProcessTarget
from engram_conformance.reference_impl.mem.project import current_project
from engram_conformance.reference_impl.mem.server import build_server
from engram_conformance.reference_impl.mem.service import MemService

from .inprocess import DEDUPE_WINDOW, PROJECT

SAVE = {"title": "Replayed token qzx", "content": "What: replayed qzx", "type": "decision"}


async def _recorded(session: Session) -> list[dict[str, Any]]:
    saved = await session.call("mem_save", SAVE, None, None)
    memory_id = int(saved.text.rpartition("ID: ")[2].split()[0])
    await session.call("mem_get_observation", {"id": memory_id}, None, None)
    await session.call("mem_search", {"query": "qzx"}, None, None)
    return [o.to_json() for o in session.transcript if o.method == "tools/call"]


def _against(state: Path, run: Any, before: list[str] = ()) -> Any:
    """``run(session)`` against a fresh mem reference that first saved ``before``'s titles."""
    service = MemService(state, current_project(PROJECT, state), DEDUPE_WINDOW)
    target = InProcessTarget("mem-reference", lambda: build_server(service), state)

    async def go() -> Any:
        async with target.connect() as connection:
            session = Session(connection, 10.0)
            for title in before:
                await session.call("mem_save", {"title": title, "content": title}, None, None)
            session.transcript.clear()
            return await run(session)

    try:
        return anyio.run(go)
    finally:
        service.close()


def _replayed(tmp_path: Path, entries: list[dict[str, Any]], before: list[str]) -> list[Any]:
    host = CONTRACT.host(CONTRACT.load_spec(), "r")
    replay = lambda session: CONTRACT.replay(session, host, entries)  # noqa: E731
    return _against(tmp_path / "replay", replay, before)


def test_ids_issued_anew_are_mapped_and_times_masked(tmp_path: Path) -> None:
    entries = _against(tmp_path / "recorded", _recorded)
    done = _replayed(tmp_path, entries, ["an earlier memory shifts every id"])
    get = done[1]
    assert get.observed.arguments == {"id": entries[1]["arguments"]["id"] + 1}
    assert get.observed.is_error is False
    assert [entry.diff for entry in done] == ["", "", ""]


def test_a_real_difference_still_shows(tmp_path: Path) -> None:
    entries = _against(tmp_path / "recorded", _recorded)
    done = _replayed(tmp_path, entries, ["an earlier memory about qzx too"])
    search = done[2]
    assert search.diff and "an earlier memory about qzx too" in search.diff


def test_times_of_every_version_are_masked() -> None:
    text = (
        "Created: 2026-12-02 06:01:02 · at 2026-12-02T06:01:02.123Z and 2026-12-02T06:01:02+01:00"
    )
    assert masked_times({"text": text}) == {"text": "Created: <time> · at <time> and <time>"}


def _answered(tool: str, structured: dict[str, Any]) -> Observation:
    return Observation(0, "tools/call", tool, {}, None, None, "result", structured, "Done.")


def test_string_ids_and_sessions_the_server_issues_are_mapped() -> None:
    """A vendor's string ids (``obs_…``, ``ses_…``), in arguments, structured content and
    text alike."""
    ids = IssuedIds()
    started = {"session": {"id": "ses_old", "project": "p"}}
    ids.learn(
        "mem_session_start",
        {"structuredContent": started, "text": "Started."},
        _answered("mem_session_start", {"session": {"id": "ses_new", "project": "p"}}),
    )
    saved = {"memory": {"id": "obs_old", "title": "T"}}
    ids.learn(
        "mem_save",
        {"structuredContent": saved, "text": "Saved obs_old."},
        _answered("mem_save", {"memory": {"id": "obs_new", "title": "T"}}),
    )
    arguments = {"id": "obs_old", "session_id": "ses_old", "ids": ["obs_old", 7]}
    assert ids.arguments(arguments) == {
        "id": "obs_new",
        "session_id": "ses_new",
        "ids": ["obs_new", 7],
    }
    replayed = {"structuredContent": {"memory": {"id": "obs_new"}}, "text": "Deleted obs_new"}
    assert ids.as_recorded(replayed) == {
        "structuredContent": {"memory": {"id": "obs_old"}},
        "text": "Deleted obs_old",
    }
