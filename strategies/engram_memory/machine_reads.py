"""The lifecycle machine's read rules: search, get and paging in the owner's scope, the same
reads and mutations from another tenant and another workspace on the owner's ids, and the
invariant that the owner's scope reveals exactly the model's current records."""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory.tool_names import ADMIT, FORGET, WITHDRAW
from hypothesis import strategies as st
from hypothesis.stateful import invariant, precondition, rule

from . import envelopes
from .answers import field, record_ids
from .machine_base import FOREIGN_ACTORS, OWNER, UNKNOWN_RECORD, MachineBase, records
from .model import RecordState

#: Page sizes the paging rule reads with (small, so that pages follow one another).
PAGE_LIMITS = st.integers(min_value=1, max_value=3)


class ReadRules(MachineBase):
    @rule(record=records)
    def search_its_term(self, record: str) -> None:
        self.may_have_written = False
        term = self.own.records[record].term
        self.driver.step(f"search the term of {record}")
        self.expect_reveals(self.search(OWNER, term), self.own.current(term), f"search {term}")

    @precondition(lambda self: len(self.own.current()) >= 2)
    @rule(limit=PAGE_LIMITS)
    def page_through(self, limit: int) -> None:
        """The example's word, ``limit`` records a page, following next_page_cursor to the end:
        every record of one large page exactly once, ranks global across pages."""
        self.driver.step(f"page through the example's word, {limit} a page")
        self.may_have_written = False
        whole = self.search(OWNER, self.term)
        self.expect_reveals(whole, self.own.current(), "search of the example's word")
        pages: list[Any] = []
        cursor = None
        while len(pages) <= len(self.own.current()):  # one page more than needs be, at most
            options = {"limit": limit} | ({"page_cursor": cursor} if cursor else {})
            page = self.search(OWNER, self.term, **options)
            if pages:
                self.expect("PAGE-001", envelopes.ok(page), "the next page: ok", page)
            pages.append(page)
            cursor = envelopes.value(page).get("next_page_cursor") if envelopes.ok(page) else None
            if not cursor:
                break
        paged = [record_id for page in pages for record_id in record_ids(page)]
        self.expect(
            "PAGE-002",
            sorted(paged, key=str) == sorted(record_ids(whole), key=str)
            and len(paged) == len(set(paged)),
            f"pages of {limit}: every record of one large page exactly once, "
            f"{sorted(record_ids(whole), key=str)}",
            pages,
        )
        ranks = [
            packet.get("rank")
            for page in pages
            for packet in envelopes.value(page).get("records", [])
        ]
        self.expect(
            "PAGE-003",
            ranks == list(range(1, len(ranks) + 1)),
            f"pages of {limit}: ranks 1..{len(ranks)} across pages",
            ranks,
        )

    @rule(record=records)
    def get_record(self, record: str) -> None:
        self.may_have_written = False
        self.driver.step(f"get {record}")
        answer = self.get(OWNER, record)
        if self.own.records[record].state is RecordState.CURRENT:
            self.expect_on(
                record,
                "LIFE-004",
                envelopes.ok(answer)
                and field(envelopes.value(answer), "record").get("record_id") == record,
                f"get of the current {record}: the record",
                answer,
            )
            return
        unknown = self.get(OWNER, UNKNOWN_RECORD)
        self.expect(
            "LIFE-017",
            not envelopes.ok(answer),
            f"get of the forgotten {record}: NOT_FOUND",
            answer,
        )
        self.expect_unknown_answer(answer, unknown, "SCOPE-004", f"get of the forgotten {record}")

    @rule(record=records, actor=st.sampled_from(FOREIGN_ACTORS))
    def foreign_read(self, record: str, actor: str) -> None:
        self.may_have_written = False
        self.driver.step(f"search and get {record} from {actor}")
        found = self.search(actor, self.term)
        self.expect(
            "SCOPE-001",
            envelopes.ok(found) and record_ids(found) == [],
            f"search from {actor}: ok with none of the owner's records",
            found,
        )
        answer, unknown = self.get(actor, record), self.get(actor, UNKNOWN_RECORD)
        self.expect(
            "SCOPE-001",
            not envelopes.ok(answer),
            f"get of {record} from {actor}: NOT_FOUND",
            answer,
        )
        self.expect_unknown_answer(answer, unknown, "SCOPE-004", f"get of {record} from {actor}")

    @rule(actor=st.sampled_from(FOREIGN_ACTORS), data=st.data())
    def foreign_transition(self, actor: str, data: st.DataObject) -> None:
        """``actor`` of another scope acts on the owner's target: the answer to an unknown id
        (compared with one to an id nobody issued), and nothing written."""
        tool = data.draw(st.sampled_from(self.targeted_tools((ADMIT, WITHDRAW, FORGET))))
        target = self.draw_target(data, tool)
        self.driver.step(f"{tool} {target} from {actor}")
        unknown = UNKNOWN_RECORD if tool == FORGET else self.driver.unique("unknowncandidate")
        answer = self.call(tool, self.transition(tool, target, self.new_key()), actor=actor)
        baseline = self.call(tool, self.transition(tool, unknown, self.new_key()), actor=actor)
        what = f"{tool} from {actor} of the owner's {target}"
        self.expect(
            "SCOPE-003", envelopes.code(answer) == "NOT_FOUND", f"{what}: NOT_FOUND", answer
        )
        self.expect_unknown_answer(answer, baseline, "SCOPE-005", what)
        self.own.refused(target, "SCOPE-006")

    @invariant()
    def scope_reveals_exactly_its_current_records(self) -> None:
        if not self.may_have_written:
            self.may_have_written = True
            return
        answer = self.search(OWNER, self.term)
        self.expect_reveals(answer, self.own.current(), "search of the example's word")
