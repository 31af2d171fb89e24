"""The one runner: drive a target through the selected checks and decide every rule.

The CLI and the pytest plugin both call ``run``. Per rule: ``not_applicable`` when the target
declares a tool absent (or the rule cannot be tested from outside a server), ``error`` when a
claimed tool is not listed or nothing decided the rule, else the ledger's verdict.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from engram_conformance.spec.engram_memory import Rule, Spec, wall_clock_ms

from .engram_memory.checks.context import AfterStop, CheckContext, CheckFailed
from .engram_memory.checks.registry import Check, PerCall, all_checks, all_per_call
from .engram_memory.host import Host
from .exceptions import ServerFault, StartupFailed
from .ledger import Failure, Ledger, Reproduction, Verdict
from .recheck import Rechecked, planned, recheck
from .session import Session
from .targets.descriptor import Policy
from .targets.launch import Target, describe
from .targets.server_log import tail

CHECK_TIMEOUT_S = 120.0
#: How long past the time budget a check may take to stop of its own accord (the generated
#: checks stop at the budget) before it is cut; the run then ends within ``BUDGET_GRACE_S``.
CHECK_SLACK_S = 5.0
BUDGET_GRACE_S = 15.0
OUT_OF_TIME = "not evaluated: the time budget ran out"
#: A server listing none of the six tools is no Engram memory server: only the discovery check
#: runs (HOST-020: the claimed tools are listed) and every other rule is not applicable.
DISCOVERY_CHECK = "claimed_tools_are_listed"
NO_ENGRAM_TOOLS = "no Engram memory tools discovered: the server lists none of the six tools"


@dataclass(frozen=True)
class RunOptions:
    profile: str = "quick"
    only: tuple[str, ...] = ()
    seed: int | None = None
    budget_s: float | None = None
    binding_mode: str = "signed-meta"
    #: where the Hypothesis-driven checks keep failing examples, to try them first next run
    example_db: Path | None = None
    #: run only this check, on this one failing example
    replay: Reproduction | None = None
    #: check each failure again, alone, before it may fail the gate (``recheck``)
    recheck: bool = True


@dataclass
class RunResult:
    """Everything a report is made of."""

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


def selected(checks: Iterable[Check], options: RunOptions) -> list[Check]:
    """The checks a run makes: those of its profile deciding a selected rule, and those that
    provoke the answers the per-call checks of selected rules judge."""
    provoking = {
        check
        for per_call in all_per_call().values()
        if any(_named(options, rule) for rule in per_call.rules)
        for check in per_call.provoked_by
    }

    def wanted(check: Check) -> bool:
        if options.replay is not None:
            return check.id == options.replay.check
        if options.profile == "quick" and check.profile == "full":
            return False
        if not options.only:
            return True
        return check.id in provoking or any(_named(options, rule) for rule in check.rules)

    return [check for check in checks if wanted(check)]


def rule_selected(rule: Rule, options: RunOptions) -> bool:
    return not options.only or _named(options, rule.id)


def _named(options: RunOptions, rule: str) -> bool:
    """Whether ``--only`` names ``rule`` or its family."""
    return rule in options.only or rule.split("-")[0] in options.only


Progress = Callable[[Check, int, int], None]


async def run(
    target: Target,
    spec: Spec,
    policy: Policy,
    host: Host,
    options: RunOptions,
    progress: Progress | None = None,
) -> RunResult:
    """Run the selected checks; ``progress(check, done, total)`` is told of each check begun."""
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
    started, started_ms = time.monotonic(), wall_clock_ms()
    ledger = Ledger()
    per_call = all_per_call()
    memories: dict[str, dict[str, Any]] = {name: {} for name in per_call}
    checks = selected(all_checks().values(), options)
    listed: list[str] = []
    server_info = None
    transcripts: dict[str, list[dict[str, Any]]] = {}
    pending = list(checks)
    blocked: dict[str, str] = {}
    current: dict[str, str | None] = {"check": None}
    first_connection = True
    budget_ends_at = None if options.budget_s is None else started + options.budget_s
    #: judgements left for after the servers stopped (None: the harness stops none)
    after_stop: list[AfterStop] | None = [] if target.stops_its_servers else None

    def context_for(
        check: Check,
        ledger: Ledger,
        session: Session,
        replay: Reproduction | None,
        ends_at: float | None,
    ) -> CheckContext:
        return CheckContext(
            check=check.id,
            spec=spec,
            policy=policy,
            host=host,
            session=session,
            ledger=ledger,
            run_id=host.run_id,
            seed=seed,
            state_files=target.state_files,
            server_log=target.stderr_log,
            budget_ends_at=ends_at,
            example_db=options.example_db,
            replay=replay,
            binding_mode=options.binding_mode,
            after_stop=after_stop,
        )

    def out_of_time() -> bool:
        return budget_ends_at is not None and time.monotonic() >= budget_ends_at

    def stderr_tail() -> str:
        shown = tail(target.stderr_log) if target.stderr_log else ""
        return f"; stderr (last lines):\n{shown}" if shown else ""

    def left_undone(why: str) -> None:
        for check in pending:
            for rule in check.rules:
                ledger.errored(rule, check.id, why)
        pending.clear()

    async def run_pending(session: Session) -> None:
        """Run the pending checks on ``session`` until one faults (then it must reconnect)."""
        while pending:
            check = pending.pop(0)
            if progress is not None:
                progress(check, len(checks) - len(pending), len(checks))
            if out_of_time():
                for rule in check.rules:
                    ledger.errored(rule, check.id, OUT_OF_TIME)
                continue
            if check.binding is not None and check.binding != options.binding_mode:
                for rule in check.rules:
                    reason = f"needs the {check.binding} binding; the target binds by"
                    ledger.inapplicable(rule, check.id, f"{reason} {options.binding_mode}")
                continue
            if any(tool in blocked for tool in check.tools):
                continue
            session.begin_check()
            context = context_for(check, ledger, session, options.replay, budget_ends_at)
            current["check"] = check.id
            failures_before = ledger.failure_count
            fault = await _run_one(check, context, ledger)
            calls = context.calls()
            if ledger.failure_count > failures_before:
                transcripts[check.id] = list(calls)
            if fault:
                for rule in check.rules:
                    ledger.errored(rule, check.id, f"the server faulted: {fault}{stderr_tail()}")
                transcripts[check.id] = list(calls)
                return

    discovery_failed: str | None = None
    while pending or first_connection:  # the server is discovered even if no check is left
        if out_of_time() and not first_connection:
            left_undone(OUT_OF_TIME)
            break
        try:
            async with target.connect() as connection:
                session = Session(connection, target.call_timeout_s)
                session.observers.append(_observer(spec, ledger, per_call, memories, current))
                if first_connection:
                    first_connection = False
                    server_info = _server_info(connection.default)
                    discovery_failed, tools = await _discover(session)
                    if discovery_failed is not None:
                        transcripts["discovery"] = [o.to_json() for o in session.transcript]
                        discovery_failed += stderr_tail()
                        pending.clear()
                        break
                    listed = [tool.name for tool in tools]
                    blocked = _blocked_tools(spec, policy, listed)
                    if not set(listed) & set(spec.tools):
                        pending[:] = [check for check in pending if check.id == DISCOVERY_CHECK]
                await run_pending(session)
        except StartupFailed as failed:
            if first_connection:
                raise  # nothing could be used: the caller exits 2 with the reason
            left_undone(f"not evaluated: the server could not be started again: {failed}")
    _judge_after_stop(after_stop, checks)
    rechecked = Rechecked()
    if options.recheck and options.replay is None and discovery_failed is None:

        def observe(fresh: Ledger, during: dict[str, str | None]) -> Callable[[Any], None]:
            return _observer(spec, fresh, per_call, {name: {} for name in per_call}, during)

        rechecked = await recheck(
            target,
            {check.id: check for check in checks},
            planned(ledger),
            make_context=context_for,
            run_one=_run_one,
            observe=observe,
            ends_at=budget_ends_at,
        )
        transcripts.update(rechecked.transcripts)
        _judge_after_stop(after_stop, checks)
    verdicts = _verdicts(spec, policy, blocked, ledger, options, listed, discovery_failed)
    checks_of_rule: dict[str, list[str]] = {}
    for check in [*all_checks().values(), *per_call.values()]:
        for rule in check.rules:
            checks_of_rule.setdefault(rule, []).append(check.id)
    return RunResult(
        verdicts,
        ledger,
        checks_of_rule,
        listed,
        list(policy.tools),
        server_info,
        transcripts,
        seed,
        started_ms,
        time.monotonic() - started,
        rechecked,
        discovery_failed,
    )


def _judge_after_stop(waiting: list[AfterStop] | None, checks: list[Check]) -> None:
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


def _server_info(client: Any) -> dict[str, str] | None:
    info = client.server_info
    if not info:
        return None
    return {"name": info.name, "version": info.version, "protocol_version": client.protocol_version}


async def _discover(session: Session) -> tuple[str | None, list[Any]]:
    """The tools the server lists, or why they could not be read (then no check can run). A
    JSON-RPC error is an answer: the server lists nothing, as HOST-020's evidence shows."""
    try:
        _, tools = await session.list_tools()
    except ServerFault as fault:
        return f"tools/list failed: {fault}", []
    return None, tools


async def _run_one(check: Check, context: CheckContext, ledger: Ledger) -> str | None:
    """Run one check; returns the fault text when the server broke (then it must reconnect).
    A check is cut after ``CHECK_TIMEOUT_S``, or ``CHECK_SLACK_S`` past its time budget."""
    limit, why = CHECK_TIMEOUT_S, f"the check did not finish within {CHECK_TIMEOUT_S} s"
    if context.budget_ends_at is not None:
        left = context.budget_ends_at + CHECK_SLACK_S - time.monotonic()
        if left < limit:
            limit, why = max(left, 0.0), "not finished: the time budget ran out"
    try:
        with anyio.fail_after(limit):
            await check.function(context)
    except ServerFault as fault:
        return str(fault)
    except CheckFailed as stopped:
        for rule in check.rules:
            ledger.errored(rule, check.id, f"the check could not go on: {stopped}")
    except TimeoutError:
        for rule in check.rules:
            ledger.errored(rule, check.id, why)
    except Exception as error:  # a harness fault is reported, never blamed on the server
        for rule in check.rules:
            ledger.errored(rule, check.id, f"harness error in {check.id}: {describe(error)}")
    return None


def _observer(
    spec: Spec,
    ledger: Ledger,
    per_call: dict[str, PerCall],
    memories: dict[str, dict[str, Any]],
    current: dict[str, str | None],
) -> Callable[[Any], None]:
    """Runs every per-call check on an observation, during the check ``current["check"]``."""

    def observe(observation: Any) -> None:
        for check in per_call.values():

            def expect(
                rule: str, ok: bool, *, expected: str, observed: Any, _id: str = check.id
            ) -> bool:
                if ok:
                    ledger.passed(rule, _id)
                else:
                    shown = observed if isinstance(observed, str) else repr(observed)[:2000]
                    calls = (observation.to_json(),)
                    failure = Failure(_id, expected, shown, calls, during=current["check"])
                    ledger.failed(rule, failure)
                return ok

            try:
                check.function(spec, observation, expect, memories[check.id])
            except Exception as error:  # a broken check is reported, never crashes the run
                for rule in check.rules:
                    ledger.errored(
                        rule, check.id, f"harness error in {check.id}: {describe(error)}"
                    )

    return observe


def _blocked_tools(spec: Spec, policy: Policy, listed: list[str]) -> dict[str, str]:
    """Tool -> why checks needing it cannot run (declared absent, or claimed but not listed)."""
    blocked = {}
    for tool in spec.tools:
        if tool not in policy.tools:
            blocked[tool] = f"not_applicable: the target declares {tool} absent"
        elif tool not in listed:
            blocked[tool] = f"error: not testable: tool {tool} absent from tools/list"
    return blocked


def _verdicts(
    spec: Spec,
    policy: Policy,
    blocked: dict[str, str],
    ledger: Ledger,
    options: RunOptions,
    listed: list[str],
    discovery_failed: str | None,
) -> dict[str, Verdict]:
    verdicts: dict[str, Verdict] = {}
    discovery_only = not set(listed) & set(spec.tools)
    for rule in spec.rules.values():
        if not rule_selected(rule, options):
            continue
        if not rule.testable:
            verdicts[rule.id] = Verdict(
                "not_applicable", f"not testable from outside a server: {rule.untestable_reason}"
            )
            continue
        if discovery_failed is not None:
            verdicts[rule.id] = Verdict("error", f"not evaluated: {discovery_failed}")
            continue
        if discovery_only and rule.id not in all_checks()[DISCOVERY_CHECK].rules:
            verdicts[rule.id] = Verdict("not_applicable", NO_ENGRAM_TOOLS)
            continue
        reasons = [blocked[t] for t in rule.tools if t in blocked]
        evidence = ledger.evidence.get(rule.id)
        decided = evidence is not None and bool(evidence.passed or evidence.failures)
        if reasons and not decided:
            kind, _, why = reasons[0].partition(": ")
            verdicts[rule.id] = Verdict(kind, why)
            continue
        verdicts[rule.id] = ledger.verdict(rule)
    return verdicts
