"""What the Hypothesis-driven checks of every contract share: their bounds, their settings, and
how they report.

Hypothesis is synchronous, the harness async: a search runs in a worker thread and sends each
call back to the event loop. It is bounded by time (at most ``BUDGET_SHARE`` of what is left of
the run's budget) and, while shrinking, by patience. For every broken rule the report keeps the
smallest failing example met.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis.control import current_build_context
from hypothesis.core import encode_failure
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import Flaky, Unsatisfiable, UnsatisfiedAssumption

from .check_context import BaseContext
from .exceptions import ServerFault
from .fuzz_database import WithoutEmptyExamples
from .ledger import Reproduction
from .observation import Observation

BUDGET_SHARE = 0.5
#: Every phase of Hypothesis but its explain phase. Once a failure is shrunk, that phase runs
#: the example again with its parts varied and once more under a line tracer, to say which
#: parts do not matter: text the kit never shows (``verbosity`` is quiet), for time taken from
#: the budget. A generated-check finding against an in-process server took 17.4 s of CPU with
#: it, 6.1 s without, for the same 417 calls: the tracer's cost.
SEARCH_PHASES = tuple(phase for phase in Phase if phase is not Phase.explain)


class HarnessStopped(Exception):
    """The server faulted: the search cannot go on (the check then reports the fault)."""


class SearchOver(KeyboardInterrupt):
    """Raised where an example would begin once none may (the time, the examples or the
    patience spent): Hypothesis' run ends at once. An example rejected instead (``reject``)
    ended it only where Hypothesis could tell that every new example would be rejected alike;
    under HypoFuzz's backend (a fuzz campaign) it went on drawing examples to reject, and gave
    up only after 458 and a hundred more for each example run (its bound on invalid examples):
    35 s of a 30 s campaign's 65 s. Hypothesis stops on a ``KeyboardInterrupt`` without taking
    it for a failure, shrinking it or storing it, so this is one; it is raised only in the
    search's worker thread, where no signal's interrupt arrives, and the search catches it there
    (``machine_search.explore``, the generated search's parts)."""


@dataclass(frozen=True)
class SearchFailure:
    """The smallest failure a search met for one rule, as reported."""

    expected: str
    observed: str
    calls: tuple[dict[str, Any], ...]
    reproduction: Reproduction | None = None


@dataclass(frozen=True)
class Finding:
    """A failing example a search met: the broken expectation, its calls, and its ``size``
    (compared to keep the smallest); a state machine's also has its steps; its Hypothesis
    choices (``hypothesis.reproduce_failure``'s blob, ``current_choices``) when the search
    keeps them, and the part of the check's search that met it (``Reproduction.part``) when
    the check runs several."""

    expected: str
    observed: str
    calls: tuple[dict[str, Any], ...]
    size: Any
    steps: tuple[str, ...] = ()
    choices: str | None = None
    part: str | None = None


def stop_time(ctx: BaseContext, seconds: float) -> float:
    """When a bounded search must stop: after ``seconds``, at most ``BUDGET_SHARE`` of what is
    left of the run's budget."""
    now = time.monotonic()
    if ctx.budget_ends_at is not None:
        seconds = min(seconds, max(0.0, ctx.budget_ends_at - now) * BUDGET_SHARE)
    return now + seconds


def quiet_settings(database: Path | None, **bounds: Any) -> settings:
    """Hypothesis settings for a search inside a run: no printing, one bug each, shrunk but not
    explained (``SEARCH_PHASES``), and failing examples kept in the folder ``database`` (none
    when None), where the next run that uses the folder tries them first; never an empty one,
    which a search cut by the run's budget while shrinking leaves (``WithoutEmptyExamples``)."""
    kept = (
        None if database is None else WithoutEmptyExamples(DirectoryBasedExampleDatabase(database))
    )
    return settings(
        deadline=None,
        database=kept,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        print_blob=False,
        report_multiple_bugs=False,
        phases=SEARCH_PHASES,
        **bounds,
    )


def current_choices() -> str:
    """The choices of the example Hypothesis is running (called inside it), as
    ``hypothesis.reproduce_failure`` takes them."""
    return encode_failure(current_build_context().data.choices).decode("ascii")


def reproduction(check: str, finding: Finding) -> Reproduction | None:
    """How ``check`` meets ``finding`` again: its choices (and its part of the search), or None
    when the search kept none."""
    if finding.choices is None:
        return None
    return Reproduction(check, hypothesis.__version__, finding.choices, finding.part)


def kept_if_smaller(findings: dict[str, Finding], rule: str, finding: Finding) -> bool:
    """Keep ``finding`` for ``rule`` when it is the first or smaller than the one kept."""
    best = findings.get(rule)
    if best is None or finding.size < best.size:
        findings[rule] = finding
        return True
    return False


def explained(error: BaseException, known: bool, own: tuple[type[BaseException], ...]) -> bool:
    """Whether what Hypothesis raised at the end is only what the search knows already: its own
    findings (``own``), a fault, or, once something is ``known`` (a finding kept, the time or the
    patience spent, a fault), examples rejected or a final replay Hypothesis calls flaky."""
    if known and isinstance(error, Flaky | Unsatisfiable):
        return True
    return all(
        isinstance(leaf, (*own, HarnessStopped))
        or (known and isinstance(leaf, Flaky | Unsatisfiable | UnsatisfiedAssumption))
        for leaf in leaves(error)
    )


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def shown(observed: Any) -> str:
    """What was observed, as one text: an answer by its summary, a list of answers one a line."""
    if isinstance(observed, Observation):
        return observed.summary()
    if isinstance(observed, list) and all(isinstance(item, Observation) for item in observed):
        return "\n".join(item.summary() for item in observed)
    return json.dumps(observed, ensure_ascii=False, sort_keys=True, default=str)[:2000]


def record_outcome(
    ctx: BaseContext,
    rules: tuple[str, ...],
    *,
    ran: bool,
    fault: ServerFault | None,
    passes: Mapping[str, int],
    passed: str,
    failures: Mapping[str, SearchFailure],
) -> None:
    """Report a search: its fault, or that it ran nothing, or per rule the smallest failure,
    or a pass for each rule some example exercised."""
    if fault is not None:
        raise fault
    if not ran:
        for rule in rules:
            ctx.ledger.errored(rule, ctx.check, "not evaluated: the time budget ran out")
        return
    for rule in rules:
        if rule in failures:
            failure = failures[rule]
            ctx.expect_calls(
                rule,
                False,
                expected=failure.expected,
                observed=failure.observed,
                calls=failure.calls,
                reproduction=failure.reproduction,
            )
        elif passes[rule]:
            ctx.expect(rule, True, expected=passed, observed=None)
