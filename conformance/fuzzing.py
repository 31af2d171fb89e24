"""Fuzz campaigns: a contract's state machine searched under HypoFuzz by several worker
processes that share one example database, for a time or a number of examples.

Each worker is a process of its own with a server of its own (the target started as ``run``
starts it), seeded apart from the others. It runs the contract's model check alone (the
per-call checks still judge every answer) with a ``campaign.Campaign`` installed, so the search
runs under HypoFuzz's backend with the shared database. The harness cuts a check after
``executor.CHECK_TIMEOUT_S``, so a worker searches in rounds of at most ``ROUND_S``, each a
run of its own on the database the last one left, until the time or the examples are spent or
a round met a failure. Whatever a worker found is in the database: the workers and the runs
that start after it try it before anything new.

Why not ``hypothesis fuzz``: it collects module-level pytest tests, where a model check needs a
live server session; it runs until every test has failed, with no time or example bound (its
hub looks every 60 s); and HypoFuzz 25.11.1's own worker fails while shrinking under the
Hypothesis this kit runs (6.170: ``ConjectureResult`` has no ``slice_comments``). Its backend,
which Hypothesis' engine drives, has none of these limits.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path

from . import campaign
from .check_registry import Checks
from .exceptions import Interrupted, StartupFailed
from .execution import hypothesis_home
from .executor import CHECK_TIMEOUT_S
from .fuzz_database import DatabaseUnusable, opened
from .reproduction import write_reproductions
from .request import PreparedRun, RunRequest, Unusable, prepare, run_request
from .runner import RunResult

#: The longest round a worker searches in one run, well inside the harness's cut of a check.
ROUND_S = CHECK_TIMEOUT_S * 0.75
#: Verdicts that say an example broke a rule.
BROKEN = ("fail", "warn")


class NothingToFuzz(Unusable):
    """The contract has no state machine."""


@dataclass(frozen=True)
class Job:
    """What one worker is asked: the target by one name (``targets.choice``), its contract,
    the worker's number and seed, the database's name, when to stop (seconds since the
    epoch; None: no time bound), how many examples to generate (None: no count bound), and
    the folder for its reproductions."""

    target: Mapping[str, str]
    contract: str
    worker: int
    seed: int
    database: str
    ends_at: float | None
    examples: int | None
    folder: Path


@dataclass(frozen=True)
class Found:
    """A rule an example broke in one worker: its verdict, the check that saw it, what was
    expected and seen (the shrunk steps, for the model check), and the pytest file that
    replays it (None for a per-call check's finding, which has no example to replay)."""

    rule: str
    verdict: str
    check: str
    expected: str
    observed: str
    reproduction: Path | None


@dataclass
class WorkerOutcome:
    """What one worker did: examples begun, rounds run, at which example of which round it
    first met a failure, what it found, and the rules it could not decide (or why it could
    not run at all)."""

    worker: int
    examples: int = 0
    rounds: int = 0
    #: (round, example) of the first failure met
    first_failure: tuple[int, int] | None = None
    found: list[Found] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def model_run(request: RunRequest) -> PreparedRun:
    """``request`` prepared to run only its contract's model check (and the per-call checks,
    which judge every answer), on the model check's rules. NothingToFuzz when the contract
    has none; Unusable and StartupFailed as ``request.prepare``."""
    prepared = prepare(request)
    contract = prepared.contract
    if contract.model_check is None:
        raise NothingToFuzz(f"the {contract.name} contract has no state machine to fuzz")
    name = contract.model_check
    checks = contract.checks()

    def model_only() -> Checks:
        return Checks({name: checks.scripted[name]}, checks.per_call)

    rules = checks.scripted[name].rules
    options = replace(prepared.options, only=rules, profile="full", recheck=False)
    return replace(prepared, contract=replace(contract, checks=model_only), options=options)


def fuzz_worker(job: Job) -> WorkerOutcome:
    """One worker's campaign: rounds of the model check under HypoFuzz until the time or the
    examples are spent or a round met a failure."""
    outcome = WorkerOutcome(job.worker)
    try:
        database = opened(job.database)
        prepared = model_run(
            RunRequest(target=job.target, contract=job.contract, seed=job.seed, profile="full")
        )
    except (Unusable, StartupFailed, DatabaseUnusable) as error:
        outcome.errors.append(str(error))
        return outcome
    ends_at = math.inf if job.ends_at is None else job.ends_at
    left = job.examples
    while time.time() < ends_at and (left is None or left > 0) and not outcome.found:
        stop_at = time.monotonic() + min(ROUND_S, ends_at - time.time())
        outcome.rounds += 1
        searched = campaign.Campaign(database, stop_at, left)
        with campaign.running(searched), hypothesis_home(job.folder / "hypothesis"):
            try:
                _, result, _ = run_request(prepared)
            except (StartupFailed, Interrupted) as error:
                outcome.errors.append(str(error))
                return outcome
        outcome.examples += searched.examples_run
        if left is not None:
            left -= searched.examples_run
        if searched.first_failure_at is not None and outcome.first_failure is None:
            outcome.first_failure = (outcome.rounds, searched.first_failure_at)
        _read(result, job.folder, prepared, outcome)
        if searched.examples_run == 0:
            break  # the server faulted before any example: a new round would do the same
    return outcome


def _read(result: RunResult, folder: Path, prepared: PreparedRun, outcome: WorkerOutcome) -> None:
    """The round's broken rules (with their reproduction files) and undecided ones."""
    origin = prepared.descriptor.origin
    files = write_reproductions(result, folder, origin, prepared.contract.name)
    for rule, verdict in sorted(result.verdicts.items()):
        evidence = result.ledger.evidence.get(rule)
        if evidence is None:
            continue
        if verdict.verdict in BROKEN:
            for failure in evidence.failures:
                written = files.get((rule, failure.check))
                reproduction = None if written is None else folder / written
                found = Found(
                    rule,
                    verdict.verdict,
                    failure.check,
                    failure.expected,
                    failure.observed,
                    reproduction,
                )
                outcome.found.append(found)
        elif verdict.verdict == "error":
            outcome.errors.extend(f"{rule}: {error}" for error in evidence.errors)


def run_campaign(
    target: Mapping[str, str],
    contract: str,
    *,
    workers: int,
    seed: int,
    database: str,
    seconds: float | None,
    examples: int | None,
    folder: Path,
) -> list[WorkerOutcome]:
    """``workers`` processes fuzzing ``contract``'s state machine against ``target``, sharing
    ``database``, for ``seconds`` and at most ``examples`` new examples in all (shared out
    among them); worker ``n`` is seeded ``seed + n`` and writes its reproductions under
    ``folder/worker-n``."""
    ends_at = None if seconds is None else time.time() + seconds
    share = None if examples is None else math.ceil(examples / workers)
    jobs = [
        Job(
            target,
            contract,
            worker,
            seed + worker,
            database,
            ends_at,
            share,
            folder / f"worker-{worker}",
        )
        for worker in range(1, workers + 1)
    ]
    # spawned, not forked: a worker starts no thread of its parent's half-way
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        return list(pool.map(fuzz_worker, jobs))


def found_rules(outcomes: list[WorkerOutcome]) -> dict[str, list[tuple[int, Found]]]:
    """Rule -> (worker, finding) for every finding of every worker."""
    by_rule: dict[str, list[tuple[int, Found]]] = {}
    for outcome in outcomes:
        for found in outcome.found:
            by_rule.setdefault(found.rule, []).append((outcome.worker, found))
    return by_rule
