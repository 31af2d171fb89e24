"""The mem machine's write rules: saves with and without a topic key (delivered answered, with
the answer lost, or several at once), repeats of earlier saves, updates and deletes."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from .driver import AT_ONCE, DELIVERIES, Delivery, Reply
from .machine_base import (
    DELETE,
    DELETED_RULE,
    END,
    KEY_TYPES,
    SAVE,
    SEARCH,
    SHORTEST_WINDOW_S,
    TYPES,
    UPDATE,
    WINDOW_SHARE,
    MachineBase,
)
from .model import REVISED, SCOPES, UPDATED, Count, Memory


class WriteRules(MachineBase):
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
        arguments |= {"scope": scope, **self.in_session(name)}
        self.saved_anew(arguments, token, delivery, "SAVE-006")

    def saved_anew(
        self, arguments: dict[str, str], token: str, delivery: Delivery, new_rule: str
    ) -> None:
        """A save without a topic key that must make a new memory (``new_rule`` says so): one,
        whatever the delivery; its duplicate_count, read then, is the start later repeats count
        from (the seed gives increments, not a first value)."""
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
            # the seed gives increments, not a first value: what it shows first is the start
            duplicates=Count.unknown(),
            created_at=self.driver.now(),
            session=arguments.get("session_id"),
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
        arguments |= {"scope": scope, "topic_key": topic_key, **self.in_session(name)}
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
            if holder.session != arguments.get("session_id"):
                holder.session = None  # saved in two sessions: no rule says which it keeps
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
            revisions=Count.unknown(),  # the start the seed's increments count from
            duplicates=Count.unknown(),
            created_at=self.driver.now(),
            session=arguments.get("session_id"),
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
        open_sessions = (None, *self.model.sessions.values())
        return [
            m
            for m in self.model.memories.values()
            if m.repeatable is not None
            and m.created_at > newest
            and m.deleted in kept
            and m.repeatable.get("session_id") in open_sessions
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

    # sessions -------------------------------------------------------------------------------
    def worked_in(self) -> list[str]:
        """The projects whose open session has memories saved in it."""
        sessions = {m.session for m in self.model.memories.values()}
        return sorted(name for name, s in self.model.sessions.items() if s in sessions)

    @precondition(lambda self: self.worked_in())
    @rule(data=st.data())
    def end_session(self, data: st.DataObject) -> None:
        """``mem_session_end`` of a project's open session that has memories (they stay of
        it): later writes there name none."""
        name = data.draw(st.sampled_from(self.worked_in()))
        session = self.model.sessions.pop(name)
        self.driver.step(f"mem_session_end {session} of {name}")
        reply = self.driver.call(END, {"id": session})
        self.expect(
            "SESS-006",
            reply.ok and reply.session in (None, session),
            f"mem_session_end of {session} succeeds and names it",
            reply,
        )
