"""A model-based search of any contract: a Hypothesis state machine run in a worker thread, its
driver's bookkeeping, and its findings as the report shows them.

The machine runs in a worker thread (``anyio.to_thread``); each call its driver sends runs on
the harness's event loop (``anyio.from_thread``, ``MachineSearch.bridged``), through the check's
session, so per-call checks see every call. A contract's driver subclasses ``MachineSearch``
and adds the calls its machine makes.

The run is bounded by its settings' examples and by time: once ``stop_at`` is past (or, in a
fuzz campaign, ``most_examples`` have begun) no new example starts (``example_begins`` raises
``SearchOver``), and Hypothesis ends at once. Shrinking a found bug stops the same way once
``patience`` examples in a row made no finding smaller (a count, so that a run's result does not
depend on the machine's speed). For every broken rule the search keeps the smallest failing
example it met, its steps, its calls and its Hypothesis choices.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import anyio.from_thread
import anyio.to_thread
import hypothesis
from hypothesis import reproduce_failure, settings
from hypothesis.errors import DidNotReproduce
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from . import campaign
from .bounded_search import (
    Finding,
    HarnessStopped,
    SearchFailure,
    SearchOver,
    current_choices,
    explained,
    kept_if_smaller,
    record_outcome,
    reproduction,
    shown,
)
from .check_context import BaseContext
from .exceptions import ServerFault

T = TypeVar("T")


class MachineSearch:
    """What a state machine's driver keeps: the example's steps and where its calls begin,
    passes per rule, the smallest finding per rule, and a fault that stopped the search."""

    def __init__(self, ctx: BaseContext, stop_at: float, patience: int) -> None:
        self.ctx = ctx
        self.stop_at = stop_at
        self.patience = patience
        self.steps: list[str] = []
        self.first_call = 0
        self.examples = 0
        self.passes: Counter[str] = Counter()
        self.findings: dict[str, Finding] = {}
        self.fault: ServerFault | None = None
        self.since_smaller = 0  # examples begun since a finding last got smaller
        self.first_failure_at: int | None = None  # the example that first broke the model
        self.most_examples: int | None = None  # examples it may begin in all (None: any number)

    def example_begins(self) -> None:
        """A new example starts: it is counted and its steps begin. ``SearchOver`` when none
        may (a fault, or the time, the examples or the patience spent)."""
        if self.findings:
            self.since_smaller += 1
        spent = (
            time.monotonic() >= self.stop_at
            or self.since_smaller > self.patience
            or (self.most_examples is not None and self.examples >= self.most_examples)
        )
        if self.fault is not None or spent:
            raise SearchOver
        self.steps = []
        self.first_call = len(self.ctx.session.transcript)
        self.examples += 1

    def bridged(self, function: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
        """``function`` run on the harness's event loop; a fault stops the search."""
        if self.fault is not None:
            raise HarnessStopped(str(self.fault))
        try:
            return anyio.from_thread.run(function, *args)
        except ServerFault as fault:
            self.fault = fault
            raise HarnessStopped(str(fault)) from fault

    def step(self, description: str) -> None:
        self.steps.append(description)

    def passed(self, rule: str) -> None:
        self.passes[rule] += 1

    def violated(self, rule: str, expected: str, observed: Any) -> None:
        """Keep the example as ``rule``'s finding when it is the first or the smallest yet."""
        if self.first_failure_at is None:
            self.first_failure_at = self.examples
        calls = tuple(o.to_json() for o in self.ctx.session.transcript[self.first_call :])
        steps = tuple(self.steps)
        size = (len(steps), len(calls))
        finding = Finding(expected, shown(observed), calls, size, steps, current_choices())
        if kept_if_smaller(self.findings, rule, finding):
            self.since_smaller = 0

    def explains(self, error: BaseException, own: tuple[type[BaseException], ...]) -> bool:
        """Whether what Hypothesis raised at the end is only what the driver knows already:
        its findings (``own``), or a fault. (Once no example may begin, the search ends on
        ``SearchOver`` and Hypothesis raises nothing.)"""
        known = bool(self.findings) or self.fault is not None
        return explained(error, known, own)

    def failures(self) -> dict[str, SearchFailure]:
        """Each broken rule's smallest finding as the report shows it: its steps, its calls,
        and how to run it again."""
        ctx = self.ctx
        failures = {}
        for rule, finding in self.findings.items():
            steps = "\n".join(f"{n}. {step}" for n, step in enumerate(finding.steps, 1))
            expected = f"{finding.expected} (model-based, Hypothesis seed {ctx.seed})"
            observed = f"{finding.observed}\nshrunk to {len(finding.steps)} steps:\n{steps}"
            # every finding of a machine search has its choices (``violated``)
            again = reproduction(ctx.check, finding)
            failures[rule] = SearchFailure(expected, observed, finding.calls, again)
        return failures


def explore(
    machine: type[RuleBasedStateMachine],
    driver: MachineSearch,
    own: tuple[type[BaseException], ...],
    bounds: settings,
    replay: str | None,
) -> None:
    """Run ``machine`` (in a worker thread), seeded with the run's seed, until Hypothesis is
    done or the time is up; or, given ``replay`` choices, run that one example (it may no
    longer fail). ``own``: the machine's violations."""
    machine = hypothesis.seed(driver.ctx.seed)(machine)
    if replay is not None:
        machine = reproduce_failure(hypothesis.__version__, replay.encode("ascii"))(machine)
    try:
        run_state_machine_as_test(machine, settings=bounds)
    except (SearchOver, DidNotReproduce):
        return
    except Exception as error:
        if not driver.explains(error, own):
            raise


async def search(
    driver: MachineSearch,
    machine: type[RuleBasedStateMachine],
    own: tuple[type[BaseException], ...],
    settings_for: Callable[[Path | None], settings],
) -> None:
    """``explore`` ``machine`` in a worker thread: from the check's example database, or
    replaying the one failing example the run was given (``ctx.example``), or, inside a fuzz
    campaign (``campaign.running``), under HypoFuzz with the campaign's database and bounds."""
    ctx = driver.ctx
    replay = ctx.example.choices if ctx.example is not None else None
    fuzzing = campaign.current()
    if fuzzing is not None and replay is None:
        driver.stop_at, driver.most_examples = fuzzing.stop_at, fuzzing.examples
        bounds = fuzzing.settings(settings_for(None))
        await anyio.to_thread.run_sync(explore, machine, driver, own, bounds, None)
        fuzzing.searched(driver.examples, driver.first_failure_at)
        return
    database = None if ctx.example_db is None or replay else ctx.example_db / ctx.check
    bounds = settings_for(database)
    await anyio.to_thread.run_sync(explore, machine, driver, own, bounds, replay)


def record(driver: MachineSearch, rules: tuple[str, ...]) -> None:
    """What the search found, against each of ``rules``: its passes, its smallest failures, or
    the fault that stopped it."""
    record_outcome(
        driver.ctx,
        rules,
        ran=driver.examples > 0,
        fault=driver.fault,
        passes=driver.passes,
        passed="the model holds",
        failures=driver.failures(),
    )
