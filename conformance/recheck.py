"""Noise control: a failure is checked again, alone, before it may fail a gate.

After the run, every check that recorded a failure of a ``must`` rule (a ``fail``) runs once
more on a fresh connection, by itself (no other check's calls interleaved), with the run's
seed, in fresh scopes; a failure of a Hypothesis-driven check runs its failing example again
(``ledger.Reproduction``). A failure recorded by a per-call check is checked again by
re-running the check it happened during. A rule whose failure recurs is ``confirmed``; one
that passes when checked alone is ``flaky``: it keeps its verdict and evidence, gets the
re-check's transcript beside the first one, and does not fail the gate
(``reports.RuleRecord.fails_gate``). A failure of any other rule (a ``warn``) is not checked
again: a ``warn`` never fails the gate, so its re-check could change nothing the gate reads,
and it cost as much as its check (a timing rule's, half a call time-out against a slow
server). Re-checks are bounded: ``MAX_RECHECKS`` checks at most, each within
``RECHECK_SECONDS`` and the run's budget. The run's progress names each re-check as it starts
(``re-check: <check>``), so that the time after the last check is seen to be spent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import anyio

from .check_registry import Check
from .exceptions import ServerFault, StartupFailed
from .executor import CheckExecutor
from .ledger import Ledger, Reproduction
from .session import Session
from .targets.launch import Target

MAX_RECHECKS = 20
RECHECK_SECONDS = 60.0
CONFIRMED, FLAKY = "confirmed", "flaky"


@dataclass(frozen=True)
class Recheck:
    """One check to run again (on one failing example, for a Hypothesis-driven check) and the
    rules it failed."""

    check: str
    example: Reproduction | None
    rules: frozenset[str]

    @property
    def name(self) -> str:
        """The key of its transcript: one re-check per check, but per example for a search."""
        return f"{self.check}.recheck" + (f".{min(self.rules)}" if self.example else "")


@dataclass
class Rechecked:
    """What the re-checks found: rule -> confirmed or flaky, and each re-check's calls."""

    outcomes: dict[str, str] = field(default_factory=dict)
    transcripts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: rule -> the transcript key of the re-check that passed it
    passed_alone: dict[str, str] = field(default_factory=dict)


def planned(ledger: Ledger, gating: Collection[str]) -> list[Recheck]:
    """The re-checks the ledger's failures of the ``gating`` rules (those whose failure fails
    the gate: the ``must`` rules) call for, in rule order."""
    rules_of: dict[tuple[str, Reproduction | None], set[str]] = {}
    for rule, evidence in sorted(ledger.evidence.items()):
        if rule not in gating:
            continue
        for failure in evidence.failures:
            check = failure.during or failure.check
            example = failure.reproduction if failure.check == check else None
            rules_of.setdefault((check, example), set()).add(rule)
    return [Recheck(c, example, frozenset(rules)) for (c, example), rules in rules_of.items()]


async def recheck(
    target: Target,
    checks: Iterable[Check],
    plan: list[Recheck],
    executor: CheckExecutor,
    *,
    ends_at: float | None,
    progress: Callable[[Check, int, int], None] | None = None,
) -> Rechecked:
    """Run the planned re-checks on one fresh connection; stop early when the time is up or
    the server faults (the rules not re-checked keep their failure as it is). ``progress``
    is told of each re-check as the run's progress is of each check."""
    found = Rechecked()
    by_id = {check.id: check for check in checks}
    plan = [unit for unit in plan if unit.check in by_id][:MAX_RECHECKS]
    if not plan:
        return found
    try:
        async with target.connect() as connection:
            session = Session(connection, target.call_timeout_s)
            for number, unit in enumerate(plan, start=1):
                now = time.monotonic()
                if ends_at is not None and now >= ends_at:
                    break
                if progress is not None:
                    shown = replace(by_id[unit.check], id=f"re-check: {unit.check}")
                    progress(shown, number, len(plan))
                stop = (
                    now + RECHECK_SECONDS
                    if ends_at is None
                    else min(ends_at, now + RECHECK_SECONDS)
                )
                ledger = Ledger()
                observer = executor.observer(ledger, during=unit.check, fresh=True)
                session.observers[:] = [observer]
                session.begin_check()
                context = executor.context(by_id[unit.check], ledger, session, unit.example, stop)
                fault = await executor.run_one(by_id[unit.check], context, ledger)
                found.transcripts[unit.name] = list(context.calls())
                if fault:
                    break
                _judge(unit, ledger, found)
    except (StartupFailed, ServerFault, anyio.BrokenResourceError):
        pass  # the server would not serve the re-checks: the failures stand as recorded
    return found


def _judge(unit: Recheck, ledger: Ledger, found: Rechecked) -> None:
    for rule in unit.rules:
        evidence = ledger.evidence.get(rule)
        if evidence is None or evidence.errors:
            continue  # not decided again: the failure stands
        if evidence.failures:
            found.outcomes[rule] = CONFIRMED
            found.passed_alone.pop(rule, None)
        elif evidence.passed and found.outcomes.get(rule) != CONFIRMED:
            found.outcomes[rule] = FLAKY
            found.passed_alone[rule] = unit.name
