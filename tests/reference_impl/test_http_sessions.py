"""The ledger of HTTP sessions on a clock of the test's: which session gives way, and when one
expires."""

from __future__ import annotations

import pytest
from engram_conformance.reference_impl.http_sessions import Full, Sessions


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def ledger(clock: Clock, *, total: int = 4, per_client: int = 3) -> Sessions:
    return Sessions(total, per_client, session_idle_s=60, session_unused_s=10, clock=clock)


def opened(sessions: Sessions, clock: Clock, client: str, *ids: str) -> None:
    for session_id in ids:
        clock.now += 1
        assert sessions.reserve(client) is None
        sessions.settle(client, session_id)


def test_at_the_cap_the_least_recently_used_idle_session_gives_way() -> None:
    clock = Clock()
    sessions = ledger(clock)
    opened(sessions, clock, "a", "a1", "a2")
    opened(sessions, clock, "b", "b1", "b2")
    clock.now += 1
    sessions.begin("a1")  # a1 used again: now the most recent
    sessions.end("a1", closed=False)
    assert sessions.reserve("c") == "a2"
    sessions.settle("c", "c1")
    sessions.begin("b1")  # in flight: cannot give way
    assert sessions.reserve("c") == "b2"


def test_a_client_at_its_cap_gives_way_itself() -> None:
    clock = Clock()
    sessions = ledger(clock, total=10)
    opened(sessions, clock, "b", "b1")
    opened(sessions, clock, "a", "a1", "a2", "a3")
    assert sessions.reserve("a") == "a1"


def test_a_new_session_is_refused_only_when_all_are_in_use() -> None:
    clock = Clock()
    sessions = ledger(clock, total=2)
    opened(sessions, clock, "a", "a1", "a2")
    sessions.begin("a1")
    sessions.begin("a2")
    with pytest.raises(Full):
        sessions.reserve("b")
    sessions.end("a2", closed=True)  # a DELETE: gone
    assert sessions.reserve("b") is None


def test_sessions_being_opened_count_against_the_caps() -> None:
    clock = Clock()
    sessions = ledger(clock, total=2)
    assert sessions.reserve("a") is None
    assert sessions.reserve("b") is None
    with pytest.raises(Full):  # nothing open yet that could give way
        sessions.reserve("c")
    sessions.settle("a", None)  # refused: nothing opened
    assert sessions.reserve("c") is None


def test_unused_sessions_expire_sooner_than_idle_ones() -> None:
    clock = Clock()
    sessions = ledger(clock)
    opened(sessions, clock, "a", "unused", "used", "busy")
    for session_id in ("used", "busy"):
        sessions.begin(session_id)
    sessions.end("used", closed=False)
    clock.now += 10
    assert sessions.expired() == ["unused"]
    clock.now += 60
    assert sessions.expired() == ["used"]  # "busy" has a request in flight
    sessions.end("busy", closed=False)
    clock.now += 60
    assert sessions.expired() == ["busy"]
    assert sessions.expired() == []
