"""The mem model check: the lifecycle machine of ``strategies.mem.machine`` against the target,
searched as every contract's model check is (``machine_search``: a worker thread, calls on the
harness's event loop, bounds, the smallest finding per rule).

Each Hypothesis example works in two fresh projects (``steps.fresh_project``) with tokens of its
own. The run is bounded by ``MAX_EXAMPLES`` and by time (``MACHINE_SECONDS``, at most
``BUDGET_SHARE`` of what is left of the run's budget); shrinking by ``SHRINK_PATIENCE``. The
dedupe window the machine keeps repeats inside is the descriptor's ``[policy] dedupe_window_s``
(seed 003's 15 minutes when it gives none).
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from engram_conformance.strategies.mem.driver import ExampleProject, Hit, Reply
from engram_conformance.strategies.mem.machine import RULES, mem_machine
from engram_conformance.strategies.violations import Violation
from hypothesis import settings

from ...bounded_search import HarnessStopped, SearchOver, quiet_settings, stop_time
from ...check_context import CheckFailed
from ...machine_search import MachineSearch, record, search
from ...session import at_once
from ..facts import (
    Context,
    Deleted,
    Fact,
    Observation,
    Saved,
    SearchResult,
    SessionEnded,
    ToolFailure,
    Updated,
)
from .context import MemContext
from .registry import check
from .steps import fact, fresh_project, titles

MAX_EXAMPLES = 150
STEPS_PER_EXAMPLE = 12
MACHINE_SECONDS = 30.0
#: Examples shrinking may run without making any finding smaller before it stops.
SHRINK_PATIENCE = 300
#: seed 003's dedupe window (DEDUP-005), when the descriptor gives none
DEFAULT_WINDOW_S = 15 * 60
#: how long the harness waits for an answer it then abandons
ABANDON_AFTER_S = 0.001
TOOLS = (
    "mem_session_start",
    "mem_session_end",
    "mem_save",
    "mem_update",
    "mem_delete",
    "mem_search",
    "mem_context",
)  # and mem_get_observation, where the server lists it (``ModelDriver.reads_back``)


def reply_of(found: Fact) -> Reply:
    """What the machine reads of an answer's fact."""
    if isinstance(found, ToolFailure):
        return Reply(False, found)
    if isinstance(found, Saved | Updated | Deleted):
        return Reply(True, found, id=found.id)
    if isinstance(found, SearchResult):
        hits = tuple(Hit(h.id, h.title, h.type, h.scope) for h in found.hits)
        return Reply(True, found, hits=hits)
    if isinstance(found, Observation):
        counters = (found.content, found.revision_count, found.duplicate_count, found.session_id)
        shown = Hit(found.id, found.title, found.type, found.scope, *counters)
        return Reply(True, found, hits=(shown,))
    if isinstance(found, Context):
        return Reply(True, found, titles=tuple(titles(found)))
    if isinstance(found, SessionEnded):
        return Reply(True, found, session=found.id)
    return Reply(True, found)


class ModelDriver(MachineSearch):
    """The machine's ``Driver``: fresh projects, calls through the check's session, answers
    read by the mem reader. An answer the reader cannot read stops the search (``refused``),
    and the check then stops as every mem check does on it."""

    def __init__(
        self,
        ctx: MemContext,
        stop_at: float,
        dedupe_window_s: float,
        hard_flag: str,
        names_sessions: bool,
        reads_back: bool,
    ) -> None:
        super().__init__(ctx, stop_at, SHRINK_PATIENCE)
        self.ctx: MemContext = ctx
        self.dedupe_window_s = dedupe_window_s
        self.hard_flag = hard_flag
        #: whether mem_session_start takes the caller's id (else the server names the session)
        self.names_sessions = names_sessions
        self.reads_back = reads_back
        self.refused: CheckFailed | None = None

    def begin(self) -> tuple[ExampleProject, ExampleProject]:
        if self.refused is not None:  # the server made no fresh project: no example can start
            raise SearchOver
        self.example_begins()
        made = [self.bridged(fresh_project, self.ctx, label) for label in ("model", "modelother")]
        mine, other = (
            ExampleProject(p.name, p.session if self.names_sessions else None) for p in made
        )
        return mine, other

    def bridged(self, function: Any, *args: Any) -> Any:
        try:
            return super().bridged(function, *args)
        except CheckFailed as refused:
            self.refused = refused
            raise HarnessStopped(str(refused)) from refused

    def unique(self, label: str) -> str:
        return self.ctx.unique(label)

    def now(self) -> float:
        return time.monotonic()

    def call(self, tool: str, arguments: dict[str, Any]) -> Reply:
        return self.bridged(self._read, tool, arguments)

    def retry_after_lost_answer(self, tool: str, arguments: dict[str, Any]) -> Reply:
        return self.bridged(self._lose_then_retry, tool, arguments)

    def at_once(self, tool: str, arguments: dict[str, Any], times: int) -> list[Reply]:
        send = partial(self._read, tool, arguments)
        return self.bridged(at_once, [send] * times)

    async def _read(self, tool: str, arguments: dict[str, Any]) -> Reply:
        return reply_of(await fact(self.ctx, tool, arguments))

    async def _lose_then_retry(self, tool: str, arguments: dict[str, Any]) -> Reply:
        """The call abandoned right after it was sent (the client cancels the request and drops
        whatever answer comes), then sent again."""
        with anyio.move_on_after(ABANDON_AFTER_S):
            await self.ctx.call(tool, arguments)
        return await self._read(tool, arguments)


def machine_settings(database: Path | None) -> settings:
    return quiet_settings(
        database, max_examples=MAX_EXAMPLES, stateful_step_count=STEPS_PER_EXAMPLE
    )


@check(rules=RULES, tools=TOOLS, profile="full", alone=True)
async def observations_follow_the_model(ctx: MemContext) -> None:
    """Generated sequences of saves, repeats, updates, deletes, searches, reads and contexts in
    two projects and both scopes, each answer judged against the model
    (``strategies.mem.machine``)."""
    window = ctx.policy.dedupe_window_s
    hard_flag = "hard_delete" if "hard_delete" in await ctx.properties("mem_delete") else "hard"
    driver = ModelDriver(
        ctx,
        stop_time(ctx, MACHINE_SECONDS),
        DEFAULT_WINDOW_S if window is None else window,
        hard_flag,
        names_sessions="id" in await ctx.properties("mem_session_start"),
        reads_back=await ctx.lists("mem_get_observation"),
    )
    await search(driver, mem_machine(driver), (Violation,), machine_settings)
    if driver.refused is not None:
        raise driver.refused
    record(driver, RULES)
