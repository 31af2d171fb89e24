"""The lifecycle model check: the state machine of ``strategies.machines`` against the target.

Hypothesis is synchronous, the harness async: the machine runs in a worker thread
(``anyio.to_thread``) and each call of its driver runs on the harness's event loop
(``anyio.from_thread``), through the check's session, so per-call checks see every call.

Each Hypothesis example starts in a fresh tenant and workspace. The run is bounded by
``MAX_EXAMPLES`` and by time (``MACHINE_SECONDS``, at most ``BUDGET_SHARE`` of what is left of the
run's budget): once the time is up no new example starts, so Hypothesis ends (examples it cannot
run count as rejected). Shrinking a found bug stops the same way once ``SHRINK_PATIENCE``
examples in a row made no finding smaller (a count, so that a run's result does not depend on
the machine's speed). For every broken rule the report keeps the smallest failing example the
search met, its steps and its calls, with the run's seed, which also seeds Hypothesis.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.to_thread
import hypothesis
from engram_conformance.spec.engram_memory import wall_clock_ms
from engram_conformance.strategies.engram_memory.machines import (
    ACTORS,
    RULES,
    Approval,
    Violation,
    lifecycle_machine,
)
from hypothesis import reproduce_failure, settings
from hypothesis.control import current_build_context
from hypothesis.core import encode_failure
from hypothesis.errors import DidNotReproduce
from hypothesis.stateful import run_state_machine_as_test

from ...bounded_search import (
    Finding,
    HarnessStopped,
    SearchFailure,
    explained,
    kept_if_smaller,
    quiet_settings,
    record_outcome,
    shown,
    stop_time,
)
from ...exceptions import ServerFault
from ...ledger import Reproduction
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
T = TypeVar("T")
NOT_THIS_CALL = "reason:not-this-call"
#: How long before the call an expired confirmation was approved (its TTL is a minute).
EXPIRED_APPROVAL_AGE_MS = 120_000


class HarnessDriver:
    """The machine's ``Driver``: identities from the host, calls through the check's session."""

    def __init__(self, ctx: CheckContext, stop_at: float) -> None:
        self.ctx = ctx
        self.stop_at = stop_at
        self.forges_confirmations = ctx.binding_mode == SIGNED_META
        self.identities: dict[str, Identity] = {}
        self.steps: list[str] = []
        self.first_call = 0
        self.examples = 0
        self.passes: Counter[str] = Counter()
        self.findings: dict[str, Finding] = {}
        self.fault: ServerFault | None = None
        self.out_of_time = False
        self.since_smaller = 0  # examples begun since a finding last got smaller

    def begin(self) -> dict[str, tuple[str, str, str]] | None:
        if self.findings:
            self.since_smaller += 1
        spent = time.monotonic() >= self.stop_at or self.since_smaller > SHRINK_PATIENCE
        if self.fault is not None or spent:
            self.out_of_time = self.fault is None
            return None
        owner, other = self.ctx.new_identity("model"), self.ctx.new_identity("foreign")
        scopes = (
            owner,
            replace(owner, tenant=other.tenant),
            replace(owner, workspace=other.workspace),
        )
        self.identities = dict(zip(ACTORS, scopes, strict=True))
        self.steps = []
        self.first_call = len(self.ctx.session.transcript)
        self.examples += 1
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
        return self._bridged(self._send, self.identities[actor], tool, arguments, approval)

    def retry_after_lost_answer(
        self, actor: str, tool: str, arguments: dict[str, Any]
    ) -> Observation:
        return self._bridged(self._lose_then_retry, self.identities[actor], tool, arguments)

    def at_once(
        self, actor: str, tool: str, arguments: dict[str, Any], times: int
    ) -> list[Observation]:
        send = partial(self._send, self.identities[actor], tool, arguments, "valid")
        return self._bridged(concurrently, send, times)

    def _bridged(self, function: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``function`` run on the harness's event loop; a fault stops the search."""
        if self.fault is not None:
            raise HarnessStopped(str(self.fault))
        try:
            return anyio.from_thread.run(function, *args)
        except ServerFault as fault:
            self.fault = fault
            raise HarnessStopped(str(fault)) from fault

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

    def step(self, description: str) -> None:
        self.steps.append(description)

    def passed(self, rule: str) -> None:
        self.passes[rule] += 1

    def violated(self, rule: str, expected: str, observed: Any) -> None:
        calls = tuple(o.to_json() for o in self.ctx.session.transcript[self.first_call :])
        choices = encode_failure(current_build_context().data.choices).decode("ascii")
        steps = tuple(self.steps)
        finding = Finding(
            expected, shown(observed), calls, (len(steps), len(calls)), steps, choices
        )
        if kept_if_smaller(self.findings, rule, finding):
            self.since_smaller = 0

    def explains(self, error: BaseException) -> bool:
        """Whether what Hypothesis raised at the end is only what the driver knows already:
        violations it kept, a fault, or examples refused once the time was up."""
        known = bool(self.findings) or self.out_of_time or self.fault is not None
        return explained(error, known, (Violation,))


def machine_settings(database: Path | None) -> settings:
    return quiet_settings(
        database, max_examples=MAX_EXAMPLES, stateful_step_count=STEPS_PER_EXAMPLE
    )


def explore(driver: HarnessDriver, seed: int, database: Path | None, replay: str | None) -> None:
    """Run the machine (in a worker thread) until Hypothesis is done or the time is up; or,
    given ``replay`` choices, run that one example (it may no longer fail)."""
    machine = hypothesis.seed(seed)(lifecycle_machine(driver))
    if replay is not None:
        machine = reproduce_failure(hypothesis.__version__, replay.encode("ascii"))(machine)
    try:
        run_state_machine_as_test(machine, settings=machine_settings(database))
    except DidNotReproduce:
        return
    except Exception as error:
        if not driver.explains(error):
            raise


@check(rules=RULES, tools=ALL_TOOLS, profile="full")
async def lifecycle_model_holds(ctx: CheckContext) -> None:
    """Generated sequences of all six tools, from the owner's scope and two foreign ones,
    judged against the model after every step (``strategies.machines``). Under a per-identity
    binding each example's three scopes get clients of their own, and confirmations that do not
    hold are not sent (as for the gate's checks, the harness cannot choose them per call)."""
    driver = HarnessDriver(ctx, stop_time(ctx, MACHINE_SECONDS))
    replay = ctx.example.choices if ctx.example is not None else None
    database = None if ctx.example_db is None or replay else ctx.example_db / ctx.check
    await anyio.to_thread.run_sync(explore, driver, ctx.seed, database, replay)
    failures = {}
    for rule, finding in driver.findings.items():
        steps = "\n".join(f"{n}. {step}" for n, step in enumerate(finding.steps, 1))
        expected = f"{finding.expected} (model-based, Hypothesis seed {ctx.seed})"
        observed = f"{finding.observed}\nshrunk to {len(finding.steps)} steps:\n{steps}"
        again = Reproduction(ctx.check, hypothesis.__version__, finding.choices)
        failures[rule] = SearchFailure(expected, observed, finding.calls, again)
    record_outcome(
        ctx,
        RULES,
        ran=driver.examples > 0,
        fault=driver.fault,
        passes=driver.passes,
        passed="the model holds",
        failures=failures,
    )
