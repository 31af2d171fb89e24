"""Checks side by side: a run makes its checks a few at a time, starts the waiting ones first,
runs a check that needs the server alone with nothing else in flight, and runs again alone a
check that decided nothing beside the others. Each test's checks are those of a contract made
here, against the toy contract's server in this process."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import anyio
import pytest
from engram_conformance.conformance.check_context import BaseContext
from engram_conformance.conformance.check_registry import Check, Checks, PerCall, registrars
from engram_conformance.conformance.runner import RunOptions, RunResult, run
from engram_conformance.conformance.side_by_side import side_by_side
from engram_conformance.conformance.targets.launch import InProcessTarget

from ..contracts.toy.plugin import CONTRACT as TOY
from ..contracts.toy.server import server as toy_server
from ..contracts.toy.spec import ECHO, ToyRule, ToySpec

SCRIPTED: dict[str, Check] = {}
PER_CALL: dict[str, PerCall] = {}
check, _ = registrars(SCRIPTED, PER_CALL, provoker="meets_its_partner")
#: a bound on a wait that only a run making its checks one after another would not end
DEADLOCK_GUARD_S = 30


class Log:
    """What the checks of one test saw: the checks in flight, the order they began in, what
    was in flight beside each run of each check, and how often each ran."""

    def __init__(self) -> None:
        self.in_flight: set[str] = set()
        self.began: list[str] = []
        self.beside: dict[str, list[set[str]]] = {}
        self.met = {"meets_its_partner": anyio.Event(), "partner": anyio.Event()}


LOG = Log()


@pytest.fixture(autouse=True)
def log() -> Iterator[Log]:
    global LOG
    LOG = Log()
    yield LOG


class Running:
    """Keeps ``LOG`` told that a check is in flight, and what else is, while it runs."""

    def __init__(self, ctx: BaseContext) -> None:
        self.check = ctx.check

    def __enter__(self) -> set[str]:
        LOG.began.append(self.check)
        beside = set(LOG.in_flight)
        LOG.beside.setdefault(self.check, []).append(beside)
        LOG.in_flight.add(self.check)
        return beside

    def __exit__(self, *exc: object) -> None:
        LOG.in_flight.discard(self.check)


async def echoed(ctx: BaseContext, rule: str) -> None:
    answer = await ctx.session.call(ECHO, {"text": "side"}, None, None)
    ctx.expect(rule, answer.text == "side", expected="side", observed=answer.text)


async def meet(ctx: BaseContext, other: str, rule: str) -> None:
    """Tell ``other`` this check has begun and wait until it has too: only checks in flight
    together both end."""
    with Running(ctx):
        LOG.met[ctx.check].set()
        with anyio.fail_after(DEADLOCK_GUARD_S):
            await LOG.met[other].wait()
        await echoed(ctx, rule)


@check(rules=("TOY-001",), tools=(ECHO,))
async def meets_its_partner(ctx: BaseContext) -> None:
    await meet(ctx, "partner", "TOY-001")


@check(rules=("TOY-002",), tools=(ECHO,))
async def partner(ctx: BaseContext) -> None:
    await meet(ctx, "meets_its_partner", "TOY-002")


@check(rules=("TOY-003",), tools=(ECHO,), alone=True)
async def needs_the_server_alone(ctx: BaseContext) -> None:
    with Running(ctx) as beside:
        ctx.expect("TOY-003", not beside, expected="no other check in flight", observed=beside)
        await echoed(ctx, "TOY-003")


@check(rules=("TOY-004",), tools=(ECHO,))
async def undecided_beside_others(ctx: BaseContext) -> None:
    """Cannot go on the first time it runs (its rule is then an error), passes the next."""
    with Running(ctx):
        ctx.require(len(LOG.beside[ctx.check]) > 1, "a second run")
        await echoed(ctx, "TOY-004")


@check(rules=("TOY-005",), tools=(ECHO,), waits=True)
async def waits_for_a_window(ctx: BaseContext) -> None:
    with Running(ctx):
        await ctx.wait(0)
        await echoed(ctx, "TOY-005")


SPEC = ToySpec(
    rules={
        f"TOY-00{n}": ToyRule(f"TOY-00{n}", "must", f"toy rule {n}", (ECHO,)) for n in range(1, 6)
    },
    tools={ECHO: object()},
)
CONTRACT = replace(
    TOY,
    load_spec=lambda root=None: SPEC,
    checks=lambda: Checks(dict(SCRIPTED), dict(PER_CALL)),
    discovery_check="meets_its_partner",
)


#: the width asked for side by side (the default's: ``side_by_side.WIDTH``)
SIDE_BY_SIDE = 8


def test_checks_run_side_by_side_unless_one_at_a_time_is_asked_for() -> None:
    assert RunOptions().width == SIDE_BY_SIDE


def run_checks(**options: Any) -> RunResult:
    target = InProcessTarget("toy-in-process", lambda: toy_server)
    host = CONTRACT.host(SPEC, "side")
    chosen = RunOptions(seed=1, **options)
    return anyio.run(run, target, CONTRACT, SPEC, None, host, chosen)


def verdicts(result: RunResult) -> dict[str, str]:
    return {rule: str(verdict.verdict) for rule, verdict in result.verdicts.items()}


def test_checks_run_side_by_side_the_waiting_ones_first(log: Log) -> None:
    result = run_checks(width=SIDE_BY_SIDE)
    assert verdicts(result) == dict.fromkeys(SPEC.rules, "pass")
    assert log.began[0] == "waits_for_a_window"  # registered last, started first


def test_a_check_that_needs_the_server_alone_runs_with_nothing_in_flight(log: Log) -> None:
    result = run_checks(width=SIDE_BY_SIDE)
    assert log.beside["needs_the_server_alone"] == [set()]
    assert result.verdicts["TOY-003"].verdict == "pass"


def test_a_check_that_decided_nothing_beside_others_runs_again_alone(log: Log) -> None:
    result = run_checks(width=SIDE_BY_SIDE)
    runs = log.beside["undecided_beside_others"]
    assert len(runs) == 2 and runs[1] == set()
    assert result.verdicts["TOY-004"].verdict == "pass"
    assert result.ledger.evidence["TOY-004"].errors == []  # the first run's error is dropped
    assert result.ledger.timings["undecided_beside_others"].calls == 1


def test_a_width_of_one_runs_the_checks_one_after_another_in_their_order(log: Log) -> None:
    only = ("TOY-003", "TOY-004", "TOY-005")
    result = run_checks(width=1, only=only)
    assert log.began == ["needs_the_server_alone", "undecided_beside_others", "waits_for_a_window"]
    assert all(beside == [set()] for beside in log.beside.values())
    assert result.verdicts["TOY-004"].verdict == "error"  # its one run, alone, decided nothing


@pytest.mark.anyio
async def test_side_by_side_starts_in_order_at_most_width_at_once_and_stops_when_told() -> None:
    started: list[int] = []
    running: set[int] = set()
    most = 0
    full, stopped = anyio.Event(), anyio.Event()

    async def one(n: int) -> bool:
        """Items 0 to 2 wait until all three are in flight; 2 then ends first, saying stop."""
        nonlocal most
        started.append(n)
        running.add(n)
        most = max(most, len(running))
        if len(running) == 3:
            full.set()
        await full.wait()
        if n != 2:
            await stopped.wait()
        running.discard(n)
        stopped.set()
        return n != 2

    await side_by_side(list(range(6)), 3, one)
    assert started == [0, 1, 2]
    assert most == 3
