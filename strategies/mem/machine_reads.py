"""The mem machine's read rules: searches for the example's term with project, type and scope
filters, ``mem_get_observation`` and ``mem_context``, each judged against the model."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from .driver import Hit
from .machine_base import (
    CONTENT_RULE,
    CONTEXT,
    DELETED_RULE,
    FOUND_RULE,
    GET,
    SCOPE_RULE,
    SEARCH,
    MachineBase,
)
from .model import PERSONAL, PROJECT, SCOPES, Memory


class ReadRules(MachineBase):
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
        type = self.known(data).type if typed else None
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
            if memory_id not in expected and not self.anywhere(memory_id, type, scope):
                rule_ = self.wrongly_found(hit, name, type, scope)
                self.expect(rule_, False, f"mem_search {arguments} does not show #{hit.id}", reply)
        for memory in self.model.memories.values():
            if memory.id not in expected:
                self.driver.passed(self.kept_out_by(memory, name, type, scope))

    def anywhere(self, memory_id: Any, type: str | None, scope: str | None) -> bool:
        """Whether the memory is a live personal one the search's type and scope allow, which
        a search of any project may show (seed 003: personal memories apply in any project)."""
        memory = self.model.memories.get(memory_id)
        return (
            memory is not None
            and memory.live
            and memory.scope == PERSONAL
            and scope in (None, PERSONAL)
            and type in (None, memory.type)
        )

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

    @precondition(lambda self: self.model.memories and self.driver.reads_back)
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
        if memory.session is not None and shown.session_id is not None:
            self.expect(
                "SESS-003",
                shown.session_id == memory.session,
                f"#{memory.id} of session {memory.session}, saved with its id",
                reply,
            )
        self.judge_counters(memory, shown, reply)

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
