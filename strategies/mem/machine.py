"""The mem lifecycle machine: Hypothesis drives a mem server through a ``Driver`` and compares
every answer with the model of ``model``.

Each example works in two fresh projects; every title and content holds the example's term and
a token of its own, so a search for the term finds the example's memories only, and a title
names the memory it belongs to. Steps: saves in either project and scope, with a topic key or
without (answered, or, without a key, with the answer lost and the call sent again, or sent
several times at once), repeats of an earlier save inside the dedupe window, updates, soft and
hard deletes, searches for the term with project, type and scope filters, ``mem_get_observation``
and ``mem_context``. Each step judges what it reads against the rule whose statement it is.

What is not certain is not judged: a repeat is sent only while its memory is well inside the
dedupe window (``WINDOW_SHARE``), with its text unchanged; an example keeps at most
``LIVE_MOST`` live memories, below the default search limit (10) and context limit (20).
"""

from __future__ import annotations

from typing import Any, ClassVar

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from ..violations import violation_of
from .driver import AT_ONCE, DELIVERIES, Delivery, Driver, Hit, Reply
from .model import (
    PERSONAL,
    PROJECT,
    REVISED,
    SAVED,
    SCOPES,
    UPDATED,
    Count,
    ExampleModel,
    Memory,
)

SAVE, UPDATE, DELETE = "mem_save", "mem_update", "mem_delete"
SEARCH, GET, CONTEXT = "mem_search", "mem_get_observation", "mem_context"
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
#: Every rule the machine decides.
RULES = (
    "SAVE-001",
    "SAVE-003",
    "SAVE-006",
    "TOPIC-001",
    "TOPIC-010",
    "DEDUP-001",
    "DEDUP-007",
    "SCOPE-001",
    "SCOPE-002",
    "SCOPE-003",
    "SCOPE-004",
    "SCOPE-005",
    "SCOPE-006",
    "SRCH-001",
    "SRCH-004",
    "DEL-001",
    "DEL-002",
    "DEL-003",
    "DEL-006",
    "DEL-007",
    "UPD-001",
    "UPD-002",
    "UPD-004",
    "CTX-001",
)
#: the rule a delete breaks when a deleted memory shows up, by how it was deleted
DELETED_RULE = {"soft": "DEL-001", "hard": "DEL-003"}
#: the rule that says a search must find a memory, by what made its text (an update: the
#: search by a word of its new title)
FOUND_RULE = {SAVED: SAVED, REVISED: REVISED, UPDATED: "UPD-002"}
#: the rule that says a memory's content is what it is (a save's: SAVE-003)
CONTENT_RULE = {SAVED: "SAVE-003", REVISED: REVISED, UPDATED: UPDATED}
SCOPE_RULE = {PROJECT: "SCOPE-001", PERSONAL: "SCOPE-002"}


class MemMachine(RuleBasedStateMachine):
    driver: ClassVar[Driver]

    def __init__(self) -> None:
        super().__init__()
        projects = self.driver.begin()
        if projects is None:
            reject()
        self.model = ExampleModel(projects)
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

    @property
    def has_room(self) -> bool:
        return len(self.model.live()) < LIVE_MOST

    # saves ----------------------------------------------------------------------------------
    @precondition(lambda self: self.has_room)
    @rule(
        project=st.integers(0, 1),
        scope=st.sampled_from(SCOPES),
        type=st.sampled_from(TYPES),
        delivery=st.sampled_from(DELIVERIES),
    )
    def save_new(self, project: int, scope: str, type: str, delivery: Delivery) -> None:
        name = self.model.projects[project]
        if delivery != "answered" and not self.repeats_allowed:
            delivery = "answered"
        self.driver.step(f"mem_save a new {type} memory, {scope} scope, in {name} ({delivery})")
        token, title, content = self.text("Saved")
        arguments = {"title": title, "content": content, "type": type, "project": name}
        self.saved_anew(arguments | {"scope": scope}, token, delivery, "SAVE-006")

    def saved_anew(
        self, arguments: dict[str, str], token: str, delivery: Delivery, new_rule: str
    ) -> None:
        """A save without a topic key that must make a new memory (``new_rule`` says so): one,
        whatever the delivery, its duplicate_count the number of saves that reached it."""
        replies = self.delivered(arguments, delivery)
        rule_ = "SAVE-001" if delivery == "answered" else "DEDUP-001"
        self.expect(rule_, all(r.ok for r in replies), "mem_save succeeds", replies)
        name = arguments["project"]
        memory_id = self.one_memory(replies, name, token, rule_, counted=delivery != "answered")
        self.expect(
            new_rule,
            memory_id not in self.model.memories,
            f"the save makes a new observation, not #{memory_id}",
            replies,
        )
        duplicates = {
            "answered": Count.exactly(1),
            "answer lost": Count(1, 2),
            "sent at once": Count.exactly(AT_ONCE),
        }[delivery]
        memory = Memory(
            id=memory_id,
            project=name,
            scope=arguments["scope"],
            type=arguments["type"],
            title=arguments["title"],
            content=arguments["content"],
            token=token,
            topic_key=None,
            revisions=Count.unknown(),
            duplicates=duplicates,
            created_at=self.driver.now(),
            repeatable=arguments,
        )
        self.model.memories[memory_id] = memory
        if delivery != "answered":
            self.expect_counted(memory)

    @precondition(lambda self: self.has_room)
    @rule(project=st.integers(0, 1), scope=st.sampled_from(SCOPES), key=st.integers(0, 1))
    def save_with_key(self, project: int, scope: str, key: int) -> None:
        name, topic_key, type = self.model.projects[project], self.keys[key], KEY_TYPES[key]
        self.driver.step(f"mem_save topic_key {topic_key} ({type}), {scope} scope, in {name}")
        token, title, content = self.text("Topic")
        arguments = {"title": title, "content": content, "type": type, "project": name}
        arguments |= {"scope": scope, "topic_key": topic_key}
        holder = self.model.topic_holder(topic_key, name, scope)
        reply = self.driver.call(SAVE, arguments)
        self.expect("SAVE-001" if holder is None else REVISED, reply.ok, "mem_save succeeds", reply)
        memory_id = self.one_memory([reply], name, token, "SAVE-001", counted=False)
        if holder is not None:
            self.expect(
                REVISED,
                memory_id == holder.id,
                f"a second save with topic_key {topic_key} in {name}, {scope} scope, revises "
                f"#{holder.id}",
                reply,
            )
            holder.rewritten(title, content, REVISED)
            holder.revisions.add(1)
            holder.duplicates = Count.unknown()
            return
        self.expect_new_for_key(memory_id, topic_key, name, scope, reply)
        self.model.memories[memory_id] = Memory(
            id=memory_id,
            project=name,
            scope=scope,
            type=type,
            title=title,
            content=content,
            token=token,
            topic_key=topic_key,
            revisions=Count.exactly(1),
            duplicates=Count.unknown(),
            created_at=self.driver.now(),
        )

    def expect_new_for_key(
        self, memory_id: int, topic_key: str, name: str, scope: str, reply: Reply
    ) -> None:
        """A save with a key no live memory of its project and scope holds is a new memory:
        not the key's memory of another project or scope (TOPIC-010), nor a soft-deleted one
        that held it (DEDUP-007), nor any other."""
        known = self.model.memories.get(memory_id)
        if known is None:
            held = self.model.with_key(topic_key)
            self.driver.passed("SAVE-001")
            if any(m.live for m in held):
                self.driver.passed("TOPIC-010")
            if any(not m.live and (m.project, m.scope) == (name, scope) for m in held):
                self.driver.passed("DEDUP-007")
            return
        if known.topic_key == topic_key and not known.live:
            rule_ = "DEDUP-007"
        elif known.topic_key == topic_key:
            rule_ = "TOPIC-010"
        else:
            rule_ = "SAVE-001"
        where = f"{name}, {scope} scope"
        self.expect(rule_, False, f"topic_key {topic_key}'s first live memory in {where}", reply)

    @property
    def repeats_allowed(self) -> bool:
        return self.driver.dedupe_window_s >= SHORTEST_WINDOW_S

    def repeatable(self) -> list[Memory]:
        """The memories whose save may be repeated now: text unchanged, well inside the dedupe
        window; live, or soft-deleted while there is room for the new memory a repeat makes."""
        if not self.repeats_allowed:
            return []
        newest = self.driver.now() - self.driver.dedupe_window_s * WINDOW_SHARE
        kept = (None, "soft") if self.has_room else (None,)
        return [
            m
            for m in self.model.memories.values()
            if m.repeatable is not None and m.created_at > newest and m.deleted in kept
        ]

    @precondition(lambda self: self.repeatable())
    @rule(data=st.data(), delivery=st.sampled_from(DELIVERIES))
    def repeat_save(self, data: st.DataObject, delivery: Delivery) -> None:
        memory = data.draw(st.sampled_from(self.repeatable()))
        assert memory.repeatable is not None
        self.driver.step(f"mem_save again what made #{memory.id} ({delivery})")
        if memory.deleted == "soft":
            self.saved_anew(memory.repeatable, memory.token, delivery, "DEDUP-007")
            memory.repeatable = None  # the new memory is the one a repeat now repeats
            return
        replies = self.delivered(memory.repeatable, delivery)
        self.expect("DEDUP-001", all(r.ok for r in replies), "the repeat succeeds", replies)
        memory_id = self.one_memory(
            replies, memory.project, memory.token, "DEDUP-001", counted=True
        )
        self.expect(
            "DEDUP-001",
            memory_id == memory.id,
            f"a repeat inside the dedupe window is absorbed into #{memory.id}",
            replies,
        )
        added = {"answered": (1, 1), "answer lost": (1, 2), "sent at once": (AT_ONCE, AT_ONCE)}
        memory.duplicates.add(*added[delivery])
        self.expect_counted(memory)

    def delivered(self, arguments: dict[str, Any], delivery: Delivery) -> list[Reply]:
        if delivery == "answered":
            return [self.driver.call(SAVE, arguments)]
        if delivery == "answer lost":
            return [self.driver.retry_after_lost_answer(SAVE, arguments)]
        return self.driver.at_once(SAVE, arguments, AT_ONCE)

    def one_memory(
        self, replies: list[Reply], project: str, token: str, rule_: str, *, counted: bool
    ) -> int:
        """The one memory the saves made or changed: the id each answer names, which must be
        the same; with ``counted`` (a save repeated, or not simply answered), or where an
        answer names none, also the one hit of ``token`` in ``project``."""
        named = {r.id for r in replies}
        if not counted and len(named) == 1 and None not in named:
            return named.pop()  # type: ignore[return-value]
        found = self.driver.call(SEARCH, {"query": token, "project": project})
        ids = {hit.id for hit in found.hits} | (named - {None})
        self.expect(
            rule_, found.ok and len(ids) == 1, f"one observation holds {token}", [found, replies]
        )
        return ids.pop()

    # updates and deletes --------------------------------------------------------------------
    def known(self, data: st.DataObject) -> Memory:
        """One of the example's memories, live or deleted, the latest first."""
        return data.draw(st.sampled_from(list(self.model.memories.values())[::-1]))

    @precondition(lambda self: self.model.memories)
    @rule(data=st.data())
    def update(self, data: st.DataObject) -> None:
        memory = self.known(data)
        self.driver.step(f"mem_update #{memory.id} with a new title and content")
        _, title, content = self.text("Updated")
        reply = self.driver.call(UPDATE, {"id": memory.id, "title": title, "content": content})
        if not memory.live:
            self.expect("UPD-004", not reply.ok, f"deleted #{memory.id} is not updated", reply)
            self.expect_hidden(memory)
            return
        self.expect("UPD-001", reply.ok, f"mem_update of #{memory.id} succeeds", reply)
        memory.rewritten(title, content, UPDATED)
        memory.revisions, memory.duplicates = Count.unknown(), Count.unknown()

    @precondition(lambda self: self.model.memories)
    @rule(data=st.data(), hard=st.booleans())
    def delete(self, data: st.DataObject, hard: bool) -> None:
        memory = self.known(data)
        kind = "hard" if hard else "soft"
        self.driver.step(f"mem_delete #{memory.id} ({kind})")
        arguments: dict[str, Any] = {"id": memory.id}
        if hard:
            arguments[self.driver.hard_flag] = True
        reply = self.driver.call(DELETE, arguments)
        if memory.deleted == "hard":
            self.expect("DEL-006", not reply.ok, f"#{memory.id} was deleted for good", reply)
        elif memory.deleted == "soft" and not hard:
            self.expect("DEL-007", not reply.ok, f"#{memory.id} is soft-deleted already", reply)
        else:
            rule_ = "DEL-006" if memory.deleted else DELETED_RULE[kind]
            self.expect(rule_, reply.ok, f"a {kind} delete of #{memory.id} succeeds", reply)
            memory.deleted = kind

    # reads ----------------------------------------------------------------------------------
    @precondition(lambda self: self.model.memories)
    @rule(
        data=st.data(),
        project=st.sampled_from((0, 1, None)),
        typed=st.booleans(),
        scope=st.sampled_from((None, *SCOPES)),
    )
    def search(
        self, data: st.DataObject, project: int | None, typed: bool, scope: str | None
    ) -> None:
        """A search for the term; ``typed``, with the type of one of the example's memories.
        Without a project only a personal-scope search is judged (SCOPE-005): what else it
        returns is the server's current project's."""
        type = self.known(data).type if typed and self.model.memories else None
        arguments: dict[str, Any] = {"query": self.term}
        name = None if project is None else self.model.projects[project]
        if name is None:
            scope = PERSONAL
        for field, value in (("project", name), ("type", type), ("scope", scope)):
            if value is not None:
                arguments[field] = value
        self.driver.step(f"mem_search {arguments}")
        reply = self.driver.call(SEARCH, arguments)
        self.expect("SAVE-001", reply.ok, "mem_search succeeds", reply)
        expected = {m.id: m for m in self.model.live(name, scope, type)}
        shown = {hit.id: hit for hit in reply.hits}
        for memory_id, memory in expected.items():
            hit = shown.get(memory_id)
            rule_ = "SCOPE-005" if name is None else FOUND_RULE[memory.shaped_by]
            self.expect(
                rule_,
                hit is not None and hit.title == memory.title,
                f"mem_search {arguments} shows #{memory_id} titled {memory.title!r}",
                reply,
            )
        for memory_id, hit in shown.items():
            if memory_id not in expected:
                rule_ = self.wrongly_found(hit, name, type, scope)
                self.expect(rule_, False, f"mem_search {arguments} does not show #{hit.id}", reply)
        for memory in self.model.memories.values():
            if memory.id not in expected:
                self.driver.passed(self.kept_out_by(memory, name, type, scope))

    def wrongly_found(self, hit: Hit, name: str | None, type: str | None, scope: str | None) -> str:
        """The rule a hit that should not be there breaks."""
        memory = self.model.memories.get(hit.id)
        if memory is not None:
            return self.kept_out_by(memory, name, type, scope)
        twin = self.model.titled(hit.title)  # a second observation of one memory
        return "SAVE-006" if twin is None else FOUND_RULE[twin.shaped_by]

    @staticmethod
    def kept_out_by(memory: Memory, name: str | None, type: str | None, scope: str | None) -> str:
        """The rule that keeps ``memory`` out of a search of ``name``, ``type`` and ``scope``
        (a project-scope memory is kept out of a search without a project by its scope)."""
        if memory.deleted is not None:
            return DELETED_RULE[memory.deleted]
        if name is not None and memory.project != name:
            return "SRCH-004"
        if scope is not None and memory.scope != scope:
            return "SCOPE-006"
        return "SRCH-001"

    def expect_hidden(self, memory: Memory, reply: Reply | None = None) -> None:
        """A deleted memory stays hidden from ``mem_get_observation`` (``reply``: its answer
        already read), whatever was tried on it since."""
        assert memory.deleted is not None
        if reply is None:
            reply = self.driver.call(GET, {"id": memory.id})
        rule_ = "DEL-002" if memory.deleted == "soft" else "DEL-003"
        self.expect(rule_, not reply.ok, f"deleted #{memory.id} is not shown", reply)

    @precondition(lambda self: self.model.memories)
    @rule(data=st.data())
    def get(self, data: st.DataObject) -> None:
        memory = self.known(data)
        self.driver.step(f"mem_get_observation #{memory.id}")
        reply = self.driver.call(GET, {"id": memory.id})
        if memory.deleted is not None:
            self.expect_hidden(memory, reply)
            return
        self.expect(FOUND_RULE[memory.shaped_by], reply.ok, f"#{memory.id} is shown", reply)
        (shown,) = reply.hits
        self.expect(
            memory.shaped_by,
            (shown.title, shown.type) == (memory.title, memory.type),
            f"#{memory.id} titled {memory.title!r}, of type {memory.type}",
            reply,
        )
        self.expect(
            CONTENT_RULE[memory.shaped_by],
            shown.content == memory.content,
            f"#{memory.id}'s content as saved: {memory.content!r}",
            reply,
        )
        self.expect(
            SCOPE_RULE[memory.scope],
            shown.scope == memory.scope,
            f"#{memory.id} of scope {memory.scope}",
            reply,
        )
        self.judge_counters(memory, shown, reply)

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
        """DEDUP-001's reading after a repeat: the memory's duplicate_count."""
        reply = self.driver.call(GET, {"id": memory.id})
        self.expect("DEDUP-001", reply.ok, f"#{memory.id} is shown", reply)
        self.judge_counters(memory, reply.hits[0], reply)

    @precondition(lambda self: self.model.memories)
    @rule(project=st.integers(0, 1))
    def context(self, project: int) -> None:
        """``mem_context`` of a project shows its live project-scope memories (CTX-001) and
        every live personal one, whatever project it was saved in (SCOPE-004)."""
        name = self.model.projects[project]
        self.driver.step(f"mem_context of {name}")
        reply = self.driver.call(CONTEXT, {"project": name})
        self.expect("CTX-001", reply.ok, "mem_context succeeds", reply)
        shown = {title for title in reply.titles if self.term in title}
        expected = [m for m in self.model.live() if m.project == name or m.scope == PERSONAL]
        for memory in expected:
            rule_ = "CTX-001" if memory.project == name else "SCOPE-004"
            self.expect(
                rule_,
                memory.title in shown,
                f"mem_context of {name} shows #{memory.id} titled {memory.title!r}",
                reply,
            )
        for memory in self.model.memories.values():
            if memory.deleted is not None and memory.title not in shown:
                self.driver.passed(DELETED_RULE[memory.deleted])
            elif memory.project != name and memory.scope == PROJECT and memory.title not in shown:
                self.driver.passed("SCOPE-003")
        for title in shown - {m.title for m in expected}:
            memory = self.model.titled(title)
            if memory is None:
                rule_ = "CTX-001"
            elif memory.deleted is not None:
                rule_ = DELETED_RULE[memory.deleted]
            elif memory.title != title:
                rule_ = FOUND_RULE[memory.shaped_by]  # an old title still shown
            elif memory.project != name and memory.scope == PROJECT:
                rule_ = "SCOPE-003"
            else:
                rule_ = "CTX-001"
            self.expect(rule_, False, f"mem_context of {name} does not show {title!r}", reply)


def mem_machine(driver: Driver) -> type[MemMachine]:
    """The machine class, bound to ``driver``."""
    return type("MemMachine", (MemMachine,), {"driver": driver})
