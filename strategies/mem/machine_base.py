"""The mem machine's state and judgement, shared by its rules (``machine_writes``,
``machine_reads``).

Each example starts with ``Driver.begin`` (two fresh projects) and a term of its own, which every
title and content holds; the machine keeps the model of ``model`` and compares every answer with
it. A broken expectation tells the driver, which keeps the example's steps and calls, then raises
a ``Violation`` of its rule.
"""

from __future__ import annotations

from typing import Any, ClassVar

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine

from ..violations import violation_of
from .driver import Driver, Hit, Reply
from .model import PERSONAL, PROJECT, REVISED, SAVED, UPDATED, ExampleModel, Memory

SAVE, UPDATE, DELETE = "mem_save", "mem_update", "mem_delete"
SEARCH, GET, CONTEXT = "mem_search", "mem_get_observation", "mem_context"
END = "mem_session_end"
#: seed 003's types, for saves without a topic key
TYPES = ("bugfix", "decision", "pattern", "discovery")
#: a topic key's type: each key always comes with its own (the seed says the title and the
#: content of a revision replace the memory's, not its type)
KEY_TYPES = ("architecture", "config")
LIVE_MOST = 8
#: the share of the dedupe window within which a repeat is sent (the window runs from the
#: memory's creation; a server may keep times to the second)
WINDOW_SHARE = 0.5
#: the shortest window under which repeats are sent at all
SHORTEST_WINDOW_S = 4.0
#: the rule a delete breaks when a deleted memory shows up, by how it was deleted
DELETED_RULE = {"soft": "DEL-001", "hard": "DEL-003"}
#: the rule that says a search must find a memory, by what made its text (an update: the
#: search by a word of its new title)
FOUND_RULE = {SAVED: SAVED, REVISED: REVISED, UPDATED: "UPD-002"}
#: the rule that says a memory's content is what it is (a save's: SAVE-003)
CONTENT_RULE = {SAVED: "SAVE-003", REVISED: REVISED, UPDATED: UPDATED}
SCOPE_RULE = {PROJECT: "SCOPE-001", PERSONAL: "SCOPE-002"}


class MachineBase(RuleBasedStateMachine):
    driver: ClassVar[Driver]

    def __init__(self) -> None:
        super().__init__()
        projects = self.driver.begin()
        if projects is None:
            reject()
        names = (projects[0].name, projects[1].name)
        sessions = {p.name: p.session for p in projects if p.session is not None}
        self.model = ExampleModel(names, sessions)
        self.term = self.driver.unique("memterm")  # a word of everything the example writes
        self.keys = tuple(f"{t}/{self.term}-{t}" for t in KEY_TYPES)

    # expectations ---------------------------------------------------------------------------
    def expect(self, rule_: str, ok: bool, expected: str, observed: Any) -> None:
        if ok:
            self.driver.passed(rule_)
            return
        self.driver.violated(rule_, expected, observed)
        raise violation_of(rule_)(f"{rule_}: {expected}")

    def text(self, what: str) -> tuple[str, str, str]:
        """A fresh token, and a title and a content that hold it and the example's term."""
        token = self.driver.unique("mem")
        title = f"{what} {token} {self.term}"
        content = f"**What**: {what} ({token})\n**Why**: {self.term}\n**Learned**: {token}"
        return token, title, content

    def in_session(self, name: str) -> dict[str, str]:
        """The ``session_id`` argument of a write in project ``name``: its open session's."""
        session = self.model.sessions.get(name)
        return {} if session is None else {"session_id": session}

    @property
    def has_room(self) -> bool:
        return len(self.model.live()) < LIVE_MOST

    # the example's memories ------------------------------------------------------------
    def known(self, data: st.DataObject) -> Memory:
        """One of the example's memories, live or deleted, the latest first."""
        return data.draw(st.sampled_from(list(self.model.memories.values())[::-1]))

    def expect_hidden(self, memory: Memory, reply: Reply | None = None) -> None:
        """A deleted memory stays hidden from ``mem_get_observation`` (``reply``: its answer
        already read), whatever was tried on it since."""
        assert memory.deleted is not None
        if reply is None:
            if not self.driver.reads_back:
                return
            reply = self.driver.call(GET, {"id": memory.id})
        rule_ = "DEL-002" if memory.deleted == "soft" else "DEL-003"
        self.expect(rule_, not reply.ok, f"deleted #{memory.id} is not shown", reply)

    def judge_counters(self, memory: Memory, shown: Hit, reply: Reply) -> None:
        """The counters ``mem_get_observation`` shows are those the model allows (one it does
        not know is learnt)."""
        for rule_, name, count, value in (
            ("TOPIC-001", "revision_count", memory.revisions, shown.revision_count),
            ("DEDUP-001", "duplicate_count", memory.duplicates, shown.duplicate_count),
        ):
            if value is None:
                continue
            if count.known:
                self.expect(rule_, count.holds(value), f"#{memory.id} {name} {count}", reply)
            count.learn(value)

    def expect_counted(self, memory: Memory) -> None:
        """DEDUP-001's reading after a repeat: the memory's duplicate_count (where the server
        has a tool to read it with)."""
        if not self.driver.reads_back:
            return
        reply = self.driver.call(GET, {"id": memory.id})
        self.expect("DEDUP-001", reply.ok, f"#{memory.id} is shown", reply)
        self.judge_counters(memory, reply.hits[0], reply)
