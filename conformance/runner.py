"""The one runner: drive a target through a contract's selected checks and decide every rule.

The CLI and the pytest plugin both call ``run``, in four steps: discover the server's tools,
run the pending checks (reconnecting after a fault), check each failure again alone
(``recheck``), decide.

Checks run side by side (``side_by_side``, ``RunOptions.width`` at a time) on the first
connection, each on a session and into a ledger of its own. What a check found there stands
when it decides its rules (``Ledger.decisive``): its passes, and its failures, which are
checked again alone like every failure (``recheck``: one that does not recur is ``flaky``).
A check that decided nothing there (an error, an undecided part) or whose connection broke
(a fault, an unanswered call, which other checks on that connection pay for) has its findings
thrown away and runs again alone, after the others, as every check of a run with a width of 1
does. The checks that say ``alone`` in the registry run alone too. Each check's ledger is
added to the run's in the run order (``Ledger.absorb``), so that evidence reads the same
however the checks were scheduled.

Per rule: ``not_applicable`` when the target declares a tool absent (or the rule cannot be
tested from outside a server), ``error`` when a claimed tool is not listed or nothing decided
the rule, else the ledger's verdict.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engram_conformance.spec.instants import wall_clock_ms

from .check_context import AfterStop
from .check_registry import Check, Checks
from .contracts import Contract
from .exceptions import ServerFault, StartupFailed
from .executor import CheckExecutor
from .ledger import Ledger, Reproduction, Verdict
from .recheck import Rechecked, planned, recheck
from .session import Session
from .sharding import Shard
from .side_by_side import WIDTH, side_by_side
from .targets.launch import Target, describe
from .targets.server_log import tail

OUT_OF_TIME = "not evaluated: the time budget ran out"
STOPPED_AT_FIRST_FAIL = "not evaluated: the run stopped at the first fail (-x)"


@dataclass(frozen=True)
class RunOptions:
    profile: str = "quick"
    only: tuple[str, ...] = ()
    seed: int | None = None
    budget_s: float | None = None
    #: the tools the target claims (``[policy] tools``); None: the contract's default claim
    #: for the tools the server lists
    claim: tuple[str, ...] | None = None
    #: where the Hypothesis-driven checks keep failing examples, to try them first next run
    example_db: Path | None = None
    #: run only this check, on this one failing example
    example: Reproduction | None = None
    #: check each failure again, alone, before it may fail the gate (``recheck``)
    recheck: bool = True
    #: stop starting checks once a must rule fails (``run -x``)
    exitfirst: bool = False
    #: run only the rules of this part of the run (``run --shard``), planned
    shard: Shard | None = None
    #: how many checks run at once (1: one after another); ``-x`` and ``example`` run one
    width: int = WIDTH
    #: check -> the seconds it took in an earlier run: checks side by side start the longest
    #: first (``start_order``); None: in the run order
    costs: Mapping[str, float] | None = None


@dataclass
class RunResult:
    """Everything a report is made of."""

    contract: str
    verdicts: dict[str, Verdict]
    ledger: Ledger
    checks_of_rule: dict[str, list[str]]
    tools_listed: list[str]
    tools_claimed: list[str]
    server_info: dict[str, str] | None
    transcripts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    seed: int = 0
    started_at_ms: int = 0
    duration_s: float = 0.0
    rechecked: Rechecked = field(default_factory=Rechecked)
    #: why the server's tools could not be discovered (then no check ran), if they could not
    discovery_failed: str | None = None


def selected(checks: Checks, options: RunOptions) -> list[Check]:
    """The checks a run makes: those of its profile deciding a selected rule, and those that
    provoke the answers the per-call checks of selected rules judge."""
    provoking = {
        check
        for per_call in checks.per_call.values()
        if any(_chosen(options, rule) for rule in per_call.rules)
        for check in per_call.provoked_by
    }

    def wanted(check: Check) -> bool:
        if options.example is not None:
            return check.id == options.example.check
        if not check.runs_in(options.profile):
            return False
        if not (options.only or options.shard):
            return True
        return check.id in provoking or any(_chosen(options, rule) for rule in check.rules)

    return [check for check in checks.scripted.values() if wanted(check)]


def rule_selected(rule: Any, options: RunOptions) -> bool:
    return _chosen(options, rule.id)


def _chosen(options: RunOptions, rule: str) -> bool:
    """Whether the run judges ``rule``: ``--only`` names it (or says nothing) and it is in
    the run's shard (or the run has none)."""
    named = not options.only or _named(options, rule)
    return named and (options.shard is None or options.shard.owns(rule))


def _named(options: RunOptions, rule: str) -> bool:
    """Whether ``--only`` names ``rule`` or its family."""
    return rule in options.only or rule.split("-")[0] in options.only


Progress = Callable[[Check, int, int], None]


@dataclass
class _Discovered:
    listed: list[str] = field(default_factory=list)
    server_info: dict[str, str] | None = None
    #: why the tools could not be read (then no check ran), if they could not
    failed: str | None = None
    #: tool -> the verdict of the rules that need it and nothing decided
    blocked: dict[str, Verdict] = field(default_factory=dict)


async def run(
    target: Target,
    contract: Contract,
    spec: Any,
    policy: Any,
    host: Any,
    options: RunOptions,
    progress: Progress | None = None,
    opened: AbstractAsyncContextManager[Any] | None = None,
) -> RunResult:
    """Run the selected checks of ``contract`` against a target promising ``policy`` (the
    contract's own value, ``Contract.settings``); ``progress(check, done, total)`` is told of each
    check begun. The steps: discover the server's tools and run the pending checks on the
    first connection (``opened``, if the caller opened it, which the run then closes;
    reconnecting after a fault for the rest), check each failure again alone, decide every
    rule."""
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    #: judgements left for after the servers stopped (None: the harness stops none)
    after_stop: list[AfterStop] | None = [] if target.stops_its_servers else None
    executor = CheckExecutor(
        contract, spec, policy, host, target, options, seed=seed, after_stop=after_stop
    )
    steps = _RunSteps(executor, progress)
    await steps.run_checks(opened)
    rechecked = await steps.recheck()
    return steps.decide(rechecked)


class _RunSteps:
    """One run's state, and its steps in the order ``run`` takes them; the executor holds
    what the run was given (its ``claim`` is settled once the tools are listed)."""

    def __init__(self, executor: CheckExecutor, progress: Progress | None) -> None:
        self.executor, self.progress = executor, progress
        self.target, self.contract = executor.target, executor.contract
        self.spec, self.options = executor.spec, executor.options
        #: the rules whose failure is a ``fail`` (any other's is a ``warn``)
        self.must_rules = frozenset(
            rule_id for rule_id, rule in self.spec.rules.items() if rule.level == "must"
        )
        self.claims_nothing = executor.claim is None  # then the default claim, once listed
        self.started, self.started_ms = time.monotonic(), wall_clock_ms()
        budget_s = self.options.budget_s
        self.budget_ends_at = None if budget_s is None else self.started + budget_s
        #: what discovery recorded, then each check's ledger in the run order (``absorbed``)
        self.ledger = Ledger()
        #: check id -> what it recorded (its last run's, for a check run again alone)
        self.recorded: dict[str, Ledger] = {}
        self.checks = selected(executor.checks, self.options)
        self.pending = list(self.checks)
        options = self.options
        self.side_by_side = options.width > 1 and not options.exitfirst and not options.example
        self.found = _Discovered()
        self.transcripts: dict[str, list[dict[str, Any]]] = {}

    def out_of_time(self) -> bool:
        return self.budget_ends_at is not None and time.monotonic() >= self.budget_ends_at

    def left_undone(self, why: str) -> None:
        for check in self.pending:
            for rule in check.rules:
                self.ledger_of(check).errored(rule, check.id, why)
        self.pending.clear()

    def ledger_of(self, check: Check) -> Ledger:
        """Where ``check``'s rules are recorded when it is not run (then nothing else is)."""
        return self.recorded.setdefault(check.id, Ledger())

    def absorbed(self) -> None:
        """Add each check's ledger to the run's, in the run order."""
        for check in self.checks:
            recorded = self.recorded.pop(check.id, None)
            if recorded is not None:
                self.ledger.absorb(recorded)

    async def run_checks(self, opened: AbstractAsyncContextManager[Any] | None) -> None:
        """Discover the server's tools on the first connection (``opened``, else a new one;
        even if no check is left), then run the pending checks, on a new connection after
        each fault."""
        first_connection = True
        while self.pending or first_connection:
            if self.out_of_time() and not first_connection:
                self.left_undone(OUT_OF_TIME)
                break
            connecting = opened if opened is not None else self.target.connect()
            opened = None
            try:
                async with connecting as connection:
                    session = Session(connection, self.target.call_timeout_s)
                    if first_connection:
                        first_connection = False
                        observer = self.executor.observer(self.ledger, during=None)
                        session.observers.append(observer)
                        if not await self.discover(session, connection):
                            break
                    if self.side_by_side:
                        self.side_by_side = False
                        if not await self.run_side_by_side(connection):
                            continue  # the rest, and what is to run again, on a new connection
                    await self.run_pending(session)
            except StartupFailed as failed:
                if first_connection:
                    raise  # nothing could be used: the caller exits 2 with the reason
                why = f"not evaluated: the server could not be started again: {failed}"
                self.left_undone(why)
        _judge_after_stop(self.executor.after_stop, self.checks)
        self.absorbed()

    async def discover(self, session: Session, connection: Any) -> bool:
        """Read the server's tools and settle what the target claims; whether checks can run
        (when the server lists none of the contract's tools, only its discovery check does)."""
        found, spec = self.found, self.spec
        await _discover(session, connection, found)
        if self.claims_nothing:
            self.executor.claim = self.contract.default_claim(spec, found.listed)
        found.blocked = _blocked_tools(spec, self.executor.claim, found.listed)
        if found.failed is not None:
            self.transcripts["discovery"] = [o.to_json() for o in session.transcript]
            found.failed += _stderr_tail(self.target)
            self.pending.clear()
            return False
        if not set(found.listed) & set(spec.tools):
            discovery = self.contract.discovery_check
            self.pending[:] = [c for c in self.pending if c.id == discovery]
        return True

    def begun(self, check: Check) -> bool:
        """Take ``check`` from the pending ones and tell the progress; whether it is to run
        (else its rules are settled: no time left, nothing to test, a tool not there)."""
        self.pending.remove(check)
        if self.progress is not None:
            self.progress(check, len(self.checks) - len(self.pending), len(self.checks))
        ledger = self.ledger_of(check)
        if self.out_of_time():
            for rule in check.rules:
                ledger.errored(rule, check.id, OUT_OF_TIME)
            return False
        unmet = check.requires(self.executor.policy) if check.requires is not None else None
        if unmet is not None:
            for rule in check.rules:
                ledger.inapplicable(rule, check.id, unmet)
            return False
        blocked = [self.found.blocked[t] for t in check.tools if t in self.found.blocked]
        if blocked:
            _skipped(self.spec, ledger, check, blocked[0])
            return False
        del self.recorded[check.id]
        return True

    async def run_side_by_side(self, connection: Any) -> bool:
        """Run the pending checks that may share the server side by side on ``connection``,
        each on a session of its own; those not kept go back to the pending ones, in the run
        order, to run alone. Whether the connection can go on (no fault, no call unanswered:
        else the rest runs on a new one)."""
        again: list[Check] = []
        renew: list[Check] = []

        async def in_company(check: Check) -> bool:
            if not self.begun(check):
                return True
            session = Session(connection, self.target.call_timeout_s)
            ledger = Ledger()
            session.observers.append(self.executor.observer(ledger, during=check.id))
            context = self.executor.context(check, ledger, session, None, self.budget_ends_at)
            fault = await self.executor.run_one(check, context, ledger)
            broken = bool(fault) or context.unanswered is not None
            if broken:
                renew.append(check)
            if broken or not ledger.decisive:
                again.append(check)
                _forget_after_stop(self.executor.after_stop, ledger)
            else:
                self.recorded[check.id] = ledger
                if ledger.failure_count:
                    self.transcripts[check.id] = list(context.calls())
            return not renew

        company = start_order([c for c in self.pending if not c.alone], self.options.costs)
        await side_by_side(company, self.options.width, in_company)
        order = {check.id: place for place, check in enumerate(self.checks)}
        self.pending = sorted([*self.pending, *again], key=lambda check: order[check.id])
        return not renew

    async def run_pending(self, session: Session) -> None:
        """Run the pending checks on ``session``, one after another, until one faults (then
        it must reconnect)."""
        while self.pending:
            check = self.pending[0]
            if not self.begun(check):
                continue
            ledger = self.recorded[check.id] = Ledger()
            if not await self.run_one(check, session, ledger):
                return
            if self.options.exitfirst and self.a_must_rule_failed(ledger):
                self.left_undone(STOPPED_AT_FIRST_FAIL)
                return

    def a_must_rule_failed(self, ledger: Ledger) -> bool:
        """Whether a must rule has recorded a failure (a ``fail``, not a ``warn``) in
        ``ledger``, in a check or in a per-call check watching its calls."""
        return any(
            entry.failures and rule in self.must_rules for rule, entry in ledger.evidence.items()
        )

    async def run_one(self, check: Check, session: Session, ledger: Ledger) -> bool:
        """Run ``check`` alone into ``ledger``; whether the session can go on (no fault, every
        call answered)."""
        session.begin_check()
        session.observers[:] = [self.executor.observer(ledger, during=check.id)]
        context = self.executor.context(
            check, ledger, session, self.options.example, self.budget_ends_at
        )
        fault = await self.executor.run_one(check, context, ledger)
        calls = context.calls()
        # the calls of a check that failed, or erred after making some (an error's evidence)
        if ledger.failure_count or (calls and ledger.error_count):
            self.transcripts[check.id] = list(calls)
        if fault:
            why = f"the server faulted: {fault}{_stderr_tail(self.target)}"
            for rule in check.rules:
                ledger.errored(rule, check.id, why)
            self.transcripts[check.id] = list(calls)
            return False
        return context.unanswered is None  # charged to its case's rules already

    async def recheck(self) -> Rechecked:
        """Check each failure again, alone (unless the options say not to, or nothing ran)."""
        if not self.options.recheck or self.options.example is not None:
            return Rechecked()
        if self.found.failed is not None:
            return Rechecked()
        plan = planned(self.ledger, self.must_rules)
        rechecked = await recheck(
            self.target,
            self.checks,
            plan,
            self.executor,
            ends_at=self.budget_ends_at,
            progress=self.progress,
        )
        self.transcripts.update(rechecked.transcripts)
        _judge_after_stop(self.executor.after_stop, self.checks)
        return rechecked

    def decide(self, rechecked: Rechecked) -> RunResult:
        """Every selected rule's verdict, and the rest of what a report is made of."""
        contract, spec, found = self.contract, self.spec, self.found
        claimed = self.executor.claim or contract.default_claim(spec, found.listed)
        return RunResult(
            contract=contract.name,
            verdicts=_verdicts(
                contract, spec, self.executor.checks, self.ledger, self.options, found
            ),
            ledger=self.ledger,
            checks_of_rule=self.executor.checks.of_rule(),
            tools_listed=found.listed,
            tools_claimed=list(claimed),
            server_info=found.server_info,
            transcripts=self.transcripts,
            seed=self.executor.seed,
            started_at_ms=self.started_ms,
            duration_s=time.monotonic() - self.started,
            rechecked=rechecked,
            discovery_failed=found.failed,
        )


def start_order(checks: list[Check], costs: Mapping[str, float] | None) -> list[Check]:
    """The order ``checks`` start in side by side: those that wait on purpose first (their
    waits overlap the others' calls), then the longest an earlier run timed them (``costs``;
    a check it did not time counts as their median), so that no long check starts last and
    runs on alone while the other slots stand empty; ties keep the run order."""
    known = costs or {}
    timed = [known[check.id] for check in checks if check.id in known]
    middle = statistics.median(timed) if timed else 0.0
    return sorted(checks, key=lambda check: (not check.waits, -known.get(check.id, middle)))


def _stderr_tail(target: Target) -> str:
    shown = tail(target.stderr_log) if target.stderr_log else ""
    return f"; stderr (last lines):\n{shown}" if shown else ""


def _judge_after_stop(waiting: list[AfterStop] | None, checks: Iterable[Check]) -> None:
    """Make the judgements the checks left for once every connection closed (so the server
    processes the harness started have stopped); one that raises errors its check's rules."""
    rules = {check.id: check.rules for check in checks}
    while waiting:
        entry = waiting.pop(0)
        try:
            entry.judge()
        except Exception as error:  # a harness fault is reported, never blamed on the server
            for rule in rules.get(entry.check, ()):
                why = f"harness error after the server stopped: {describe(error)}"
                entry.ledger.errored(rule, entry.check, why)


def _forget_after_stop(waiting: list[AfterStop] | None, ledger: Ledger) -> None:
    """Drop the judgements left for after the stop into ``ledger``, which is thrown away."""
    if waiting is not None:
        waiting[:] = [entry for entry in waiting if entry.ledger is not ledger]


def _server_info(client: Any) -> dict[str, str] | None:
    info = client.server_info
    if not info:
        return None
    return {"name": info.name, "version": info.version, "protocol_version": client.protocol_version}


async def _discover(session: Session, connection: Any, found: _Discovered) -> None:
    """The tools the server lists, or why they could not be read (then no check can run). A
    JSON-RPC error is an answer: the server lists nothing, as HOST-020's evidence shows."""
    found.server_info = _server_info(connection.default)
    try:
        _, tools = await session.list_tools()
    except ServerFault as fault:
        found.failed = f"tools/list failed: {fault}"
        return
    found.listed = [tool.name for tool in tools]


def _skipped(spec: Any, ledger: Ledger, check: Check, blocked: Verdict) -> None:
    """``check`` needs a tool the target does not claim (or claims and does not list): the part
    of its rules it covers is left undecided (or is an error), except for a rule speaking of
    each listed tool, of which an absent tool is no part."""
    reason = blocked.reason or ""
    for rule in check.rules:
        if spec.rules[rule].tools_each:
            ledger.inapplicable(rule, check.id, reason)
        elif blocked.verdict == "error":
            ledger.errored(rule, check.id, reason)
        else:
            ledger.unchecked(rule, check.id, reason)


def _blocked_tools(
    spec: Any, claim: tuple[str, ...] | None, listed: list[str]
) -> dict[str, Verdict]:
    """Tool -> the verdict of rules needing it (declared absent, or claimed but not listed)."""
    blocked = {}
    for tool in spec.tools:
        if tool not in (claim or ()):
            why = f"the target does not claim {tool} (declared absent, or optional and not listed)"
            blocked[tool] = Verdict("not_applicable", why)
        elif tool not in listed:
            blocked[tool] = Verdict("error", f"not testable: tool {tool} absent from tools/list")
    return blocked


def _verdicts(
    contract: Contract,
    spec: Any,
    checks: Checks,
    ledger: Ledger,
    options: RunOptions,
    found: _Discovered,
) -> dict[str, Verdict]:
    verdicts: dict[str, Verdict] = {}
    discovery_only = not set(found.listed) & set(spec.tools)
    discovery = checks.scripted.get(contract.discovery_check)
    discovery_rules = discovery.rules if discovery is not None else ()
    for rule in spec.rules.values():
        if not rule_selected(rule, options):
            continue
        if not rule.testable:
            why = f"not testable from outside a server: {rule.untestable_reason}"
            verdicts[rule.id] = Verdict("not_applicable", why)
            continue
        if found.failed is not None:
            verdicts[rule.id] = Verdict("error", f"not evaluated: {found.failed}")
            continue
        if discovery_only and rule.id not in discovery_rules:
            verdicts[rule.id] = Verdict("not_applicable", contract.no_tools)
            continue
        needed = () if rule.tools_each else rule.tools
        blocked = [found.blocked[t] for t in needed if t in found.blocked]
        evidence = ledger.evidence.get(rule.id)
        if blocked and not (evidence is not None and evidence.failures):
            # a part of the statement needs the tool: what passed without it decides nothing
            passed = evidence.passed if evidence is not None else 0
            checked = f" ({passed} other part(s) passed)" if passed else ""
            verdicts[rule.id] = replace(blocked[0], reason=f"{blocked[0].reason}{checked}")
            continue
        verdicts[rule.id] = ledger.verdict(rule)
    return verdicts
