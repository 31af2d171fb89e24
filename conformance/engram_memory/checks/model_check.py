"""The lifecycle model check: the state machine of ``strategies.machines`` against the target,
searched as every contract's model check is (``machine_search``: a worker thread, calls on the
harness's event loop, bounds, the smallest finding per rule).

Each Hypothesis example starts in a fresh tenant and workspace. The run is bounded by
``MAX_EXAMPLES`` and by time (``MACHINE_SECONDS``, at most ``BUDGET_SHARE`` of what is left of the
run's budget); shrinking by ``SHRINK_PATIENCE``. For every broken rule the report keeps the
smallest failing example the search met, its steps and its calls, with the run's seed, which also
seeds Hypothesis.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from engram_conformance.spec.engram_memory import wall_clock_ms
from engram_conformance.strategies.engram_memory.machines import (
    ACTORS,
    RULES,
    Approval,
    Violation,
    lifecycle_machine,
)
from hypothesis import settings

from ...bounded_search import quiet_settings, stop_time
from ...machine_search import MachineSearch, record, search
from ...observation import Observation
from ..host import ABSENT, Identity
from .calls import ALL_TOOLS, SIGNED_META
from .context import CheckContext
from .delivery import ABANDON_AFTER_S, concurrently, definite
from .registry import check

MAX_EXAMPLES = 200
STEPS_PER_EXAMPLE = 15
MACHINE_SECONDS = 40.0
#: Examples shrinking may run without making any finding smaller before it stops.
SHRINK_PATIENCE = 80
NOT_THIS_CALL = "reason:not-this-call"
#: How long before the call an expired confirmation was approved (its TTL is a minute).
EXPIRED_APPROVAL_AGE_MS = 120_000


class HarnessDriver(MachineSearch):
    """The machine's ``Driver``: identities from the host, calls through the check's session."""

    def __init__(self, ctx: CheckContext, stop_at: float) -> None:
        super().__init__(ctx, stop_at, SHRINK_PATIENCE)
        self.ctx: CheckContext = ctx
        self.forges_confirmations = ctx.policy.binding_mode == SIGNED_META
        self.identities: dict[str, Identity] = {}

    def begin(self) -> dict[str, tuple[str, str, str]]:
        self.example_begins()
        owner, other = self.ctx.new_identity("model"), self.ctx.new_identity("foreign")
        scopes = (
            owner,
            replace(owner, tenant=other.tenant),
            replace(owner, workspace=other.workspace),
        )
        self.identities = dict(zip(ACTORS, scopes, strict=True))
        return {actor: (i.tenant, i.workspace, i.principal) for actor, i in self.identities.items()}

    def unique(self, label: str) -> str:
        return self.ctx.unique(label)

    def capture_arguments(self, actor: str, text: str, key: str) -> dict[str, Any]:
        return self.ctx.capture_arguments(text, key=key, identity=self.identities[actor])

    def purpose(self, actor: str) -> str:
        return self.identities[actor].purpose_ref

    def call(
        self, actor: str, tool: str, arguments: dict[str, Any], approval: Approval
    ) -> Observation:
        return self.bridged(self._send, self.identities[actor], tool, arguments, approval)

    def retry_after_lost_answer(
        self, actor: str, tool: str, arguments: dict[str, Any]
    ) -> Observation:
        return self.bridged(self._lose_then_retry, self.identities[actor], tool, arguments)

    def at_once(
        self, actor: str, tool: str, arguments: dict[str, Any], times: int
    ) -> list[Observation]:
        send = partial(self._send, self.identities[actor], tool, arguments, "valid")
        return self.bridged(concurrently, send, times)

    async def _lose_then_retry(
        self, identity: Identity, tool: str, arguments: dict[str, Any]
    ) -> Observation:
        """The call abandoned right after it was sent (the client cancels the request and drops
        whatever answer comes; the abandoned call is not in the transcript), then retried."""
        send = partial(self._send, identity, tool, arguments, "valid")
        with anyio.move_on_after(ABANDON_AFTER_S):
            await send()
        return await definite(send)

    async def _send(
        self, identity: Identity, tool: str, arguments: dict[str, Any], approval: Approval
    ) -> Observation:
        ctx = self.ctx
        if approval == "valid":
            return await ctx.call_approved(tool, arguments, identity=identity)
        if approval == "absent":
            confirmation: Any = ABSENT
        elif approval == "expired":
            approved = wall_clock_ms() - EXPIRED_APPROVAL_AGE_MS
            confirmation = ctx.host.confirmation(tool, arguments, approved_ms=approved)
        elif approval == "other_target":
            confirmation = ctx.host.confirmation(tool, arguments, target=ctx.unique("other"))
        else:
            confirmation = ctx.host.confirmation(tool, {**arguments, "reason_ref": NOT_THIS_CALL})
        return await ctx.call(tool, arguments, identity=identity, confirmation=confirmation)


def machine_settings(database: Path | None) -> settings:
    return quiet_settings(
        database, max_examples=MAX_EXAMPLES, stateful_step_count=STEPS_PER_EXAMPLE
    )


@check(rules=RULES, tools=ALL_TOOLS, profile="full", alone=True)
async def lifecycle_model_holds(ctx: CheckContext) -> None:
    """Generated sequences of all six tools, from the owner's scope and two foreign ones,
    judged against the model after every step (``strategies.machines``). Under a per-identity
    binding each example's three scopes get clients of their own, and confirmations that do not
    hold are not sent (as for the gate's checks, the harness cannot choose them per call)."""
    driver = HarnessDriver(ctx, stop_time(ctx, MACHINE_SECONDS))
    await search(driver, lifecycle_machine(driver), (Violation,), machine_settings)
    record(driver, RULES)
