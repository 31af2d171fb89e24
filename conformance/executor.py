"""Running one check: its context, its time limit, and the per-call checks that judge each of
its answers. The run and its re-checks both run checks through a ``CheckExecutor``."""

from __future__ import annotations

import itertools
import time
import traceback
from collections.abc import Iterator
from typing import Any

import anyio

from .check_context import AfterStop, CheckFailed, Undecided
from .check_registry import Check
from .contracts import Contract
from .exceptions import ServerFault
from .ledger import Ledger, Reproduction
from .observation import Observation
from .per_call_context import PerCallContext
from .session import Observer, Session
from .targets.launch import Target, describe

CHECK_TIMEOUT_S = 120.0
#: How long past the time budget a check may take to stop of its own accord (the generated
#: checks stop at the budget) before it is cut.
CHECK_SLACK_S = 5.0


class CheckExecutor:
    """What every check of one run shares: the contract, its spec and host, the target, and
    the per-call checks and what they remember."""

    def __init__(
        self,
        contract: Contract,
        spec: Any,
        policy: Any,
        host: Any,
        target: Target,
        options: Any,
        *,
        seed: int,
        after_stop: list[AfterStop] | None,
    ) -> None:
        self.contract = contract
        self.spec = spec
        #: the target's policy as the contract reads it (``Contract.settings``)
        self.policy = policy
        #: the tools the target claims: the descriptor's, else (once the server's tools are
        #: listed) the contract's default claim
        self.claim: tuple[str, ...] | None = options.claim
        self.host = host
        self.target = target
        self.options = options
        self.seed = seed
        self.after_stop = after_stop
        self.checks = contract.checks()
        self.memories: dict[str, dict[Any, Any]] = {name: {} for name in self.checks.per_call}
        #: each check's ``unique`` numbers, kept from one of its contexts to the next
        self.numbers: dict[str, Iterator[int]] = {}

    def context(
        self,
        check: Check,
        ledger: Ledger,
        session: Session,
        example: Reproduction | None,
        ends_at: float | None,
    ) -> Any:
        """``check``'s context."""
        return self.contract.context(
            self.host,
            check=check.id,
            spec=self.spec,
            policy=self.policy,
            session=session,
            ledger=ledger,
            run_id=self.host.run_id,
            numbers=self.numbers.setdefault(check.id, itertools.count(1)),
            seed=self.seed,
            state_files=self.target.state_files,
            server_log=self.target.stderr_log,
            budget_ends_at=ends_at,
            example_db=self.options.example_db,
            example=example,
            after_stop=self.after_stop,
            claim=self.claim,
        )

    async def run_one(self, check: Check, context: Any, ledger: Ledger) -> str | None:
        """Run one check; returns the fault text when the server broke (then it must
        reconnect). A check is cut after ``CHECK_TIMEOUT_S``, or ``CHECK_SLACK_S`` past its
        time budget."""
        limit, why = CHECK_TIMEOUT_S, f"the check did not finish within {CHECK_TIMEOUT_S} s"
        if context.budget_ends_at is not None:
            left = context.budget_ends_at + CHECK_SLACK_S - time.monotonic()
            if left < limit:
                limit, why = max(left, 0.0), "not finished: the time budget ran out"
        started = time.monotonic()
        try:
            with anyio.fail_after(limit):
                await check.function(context)
        except ServerFault as fault:
            return str(fault)
        except CheckFailed as stopped:
            for rule in check.rules:
                ledger.errored(rule, check.id, f"the check could not go on: {stopped}")
        except Undecided as undecided:
            for rule in undecided.rules or check.rules:
                ledger.unchecked(rule, check.id, f"not decided: {undecided}")
        except TimeoutError:
            for rule in check.rules:
                ledger.errored(rule, check.id, why)
        except Exception as error:  # a harness fault is reported, never blamed on the server
            why = f"harness error in {check.id} (a bug of the kit): {describe(error)}"
            for rule in check.rules:
                ledger.errored(rule, check.id, f"{why}\n{kit_traceback(error)}")
        finally:
            elapsed = time.monotonic() - started
            ledger.timed(check.id, elapsed, context.call_count(), context.waited_s)
        return None

    def observer(self, ledger: Ledger, *, during: str | None, fresh: bool = False) -> Observer:
        """Runs every per-call check on an observation of the calls of the check ``during``
        (None: the run's own, its discovery), into ``ledger``; ``fresh`` gives them an empty
        memory (a re-check judges its calls alone)."""
        memories = {name: {} for name in self.checks.per_call} if fresh else self.memories

        def observe(observation: Observation) -> None:
            for check in self.checks.per_call.values():
                context = PerCallContext(
                    check=check.id,
                    spec=self.spec,
                    observed=observation,
                    memory=memories[check.id],
                    ledger=ledger,
                    during=during,
                )
                try:
                    check.function(context)
                except Exception as error:  # a broken check is reported, never crashes the run
                    why = f"harness error in {check.id}: {describe(error)}"
                    for rule in check.rules:
                        ledger.errored(rule, check.id, why)

        return observe


def kit_traceback(error: BaseException) -> str:
    """The traceback of a harness error, its innermost frames last, for the report."""
    return "".join(traceback.format_exception(error, limit=-8)).rstrip()
