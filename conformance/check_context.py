"""What every contract's check works with: the session, the rule ledger, the run's budget, and
the recording of verdicts (``expect``). A contract's own context adds its calls and values.

``expect`` records one verdict-bearing comparison against a rule; ``require`` stops a check whose
precondition did not hold (its rules become ``error``), so a check states exactly what it
decides. ``undecided`` stops a check that cannot decide through no fault of the server (an answer
in a form no reader knows, an argument the server does not publish): its rules are then not
applicable, with the reason and how to make them testable, never ``pass``, ``fail`` or ``error``.
``case`` keeps a fault of one case of a check to that case's rules while the server still
answers, so that one unanswered call charges one rule. ``timed`` judges a call for a timing
rule, for which a late answer and none within the call time-out are the same verdict.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

import anyio

from .exceptions import NoAnswerInTime, ServerFault
from .ledger import Failure, Ledger, Reproduction
from .observation import Observation
from .session import Session


@dataclass(frozen=True)
class AfterStop:
    """A judgement a check left for after the target's servers have stopped."""

    check: str
    judge: Callable[[], None]
    ledger: Ledger


class CheckFailed(Exception):
    """Raised by ``require``: the check cannot go on (its precondition did not hold)."""


class Undecided(Exception):
    """Raised by ``undecided``: the check cannot decide its rules, through no fault of the
    server; ``rules`` are those it leaves undecided (empty: every rule of the check)."""

    def __init__(self, reason: str, rules: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.rules = rules


class BaseContext:
    def __init__(
        self,
        *,
        check: str,
        spec: Any,
        policy: Any,
        session: Session,
        ledger: Ledger,
        run_id: str,
        seed: int,
        state_files: Callable[[], list[Path]] | None = None,
        server_log: Path | None = None,
        budget_ends_at: float | None = None,
        example_db: Path | None = None,
        example: Reproduction | None = None,
        after_stop: list[AfterStop] | None = None,
        claim: tuple[str, ...] | None = None,
        numbers: Iterator[int] | None = None,
    ) -> None:
        self.check = check
        #: the contract's loaded spec
        self.spec = spec
        #: what the target's descriptor promises, as the contract reads it (its
        #: ``Contract.settings``)
        self.policy = policy
        #: the tools the target claims (None until the run settled the default claim)
        self.claim = claim
        self.session = session
        self.ledger = ledger
        self.run_id = run_id
        self.seed = seed
        #: the files the descriptor's ``[state] files`` match now (None: the target lists none)
        self.state_files = state_files
        #: the server's stderr log, when the harness started the server
        self.server_log = server_log
        #: when the run's time budget ends (``time.monotonic()``), None without a budget
        self.budget_ends_at = budget_ends_at
        #: where a Hypothesis-driven check keeps its failing examples (None: nowhere)
        self.example_db = example_db
        #: the one failing example a Hypothesis-driven check runs instead of searching
        self.example = example
        #: where judgements wait for the end of the run (None: the harness stops no server)
        self._after_stop = after_stop
        self._first_call = len(session.transcript)
        #: the numbers ``unique`` tells its tokens apart by: the executor's for this check, which
        #: go on from one run of the check to the next (a check run again alone after it ran in
        #: company makes no token of its first run again, which its first run may have saved)
        self._unique = itertools.count(1) if numbers is None else numbers
        #: the fault of a case's call left unanswered while the server still answered: it may
        #: still be working on it, so the next check gets a fresh connection (``case``)
        self.unanswered: str | None = None
        #: the time this check spent sleeping on purpose (``wait``)
        self.slept_s = 0.0

    # recording ---------------------------------------------------------------------------
    @property
    def claimed_tools(self) -> tuple[str, ...]:
        """The tools the target claims: its descriptor's, or the default claim the runner
        settles once the server's tools are listed, before any check runs."""
        if self.claim is None:
            raise RuntimeError("the claimed tools are read before the run settled them")
        return self.claim

    def calls(self) -> tuple[dict[str, Any], ...]:
        """This check's calls so far, as data."""
        return tuple(o.to_json() for o in self.session.transcript[self._first_call :])

    @property
    def waited_s(self) -> float:
        """The time this check spent waiting, for the report's timing: on purpose (``wait``)
        and for answers that never came (its calls that timed out)."""
        calls = self.session.transcript[self._first_call :]
        return self.slept_s + sum(call.latency_ms for call in calls if call.timed_out) / 1000

    def call_count(self) -> int:
        """How many calls this check has made so far."""
        return len(self.session.transcript) - self._first_call

    def expect(
        self,
        rule: str,
        ok: bool,
        *,
        expected: str,
        observed: Any,
        passed_because: str | None = None,
    ) -> bool:
        """Record ``ok`` against ``rule``; a failure shows ``expected`` and ``observed``, a pass
        ``passed_because`` (the verdict's reason), when what passed is worth saying."""
        if ok:
            self.ledger.passed(rule, self.check, passed_because)
        else:
            shown = observed if isinstance(observed, str) else show(observed)
            failure = Failure(self.check, expected, shown, self.calls(), self.seed, self.check)
            self.ledger.failed(rule, failure)
        return ok

    def expect_calls(
        self,
        rule: str,
        ok: bool,
        *,
        expected: str,
        observed: Any,
        calls: tuple[dict[str, Any], ...],
        reproduction: Reproduction | None = None,
    ) -> bool:
        """``expect``, but a failure shows ``calls`` (a shrunk sequence, say), not every call
        the check made, and how to meet it again, when known."""
        if ok:
            self.ledger.passed(rule, self.check)
        else:
            shown = observed if isinstance(observed, str) else show(observed)
            failure = Failure(
                self.check, expected, shown, calls, self.seed, self.check, reproduction
            )
            self.ledger.failed(rule, failure)
        return ok

    @asynccontextmanager
    async def case(self, rules: Iterable[str], what: str) -> AsyncIterator[None]:
        """One case of a check that sends several: a call of it left unanswered (a time-out, an
        answer that is no MCP) is a failure of ``rules`` alone, at their level, and the check
        goes on with its next case while the server still answers (``Session.still_answers``).
        A server that stopped answering ends the check (the fault is raised again); after one
        that still answers, the next check gets a fresh connection (``_go_on_after``)."""
        try:
            yield
        except ServerFault as fault:
            for rule in rules:
                self.expect(rule, False, expected=f"{what}: an answer", observed=str(fault))
            await self._go_on_after(fault)

    async def timed(
        self, rule: str, what: str, send: Callable[[], Awaitable[Observation]], within_ms: float
    ) -> Observation | None:
        """A timing rule's judgement of one call (``send``): answered within ``within_ms``, or
        ``rule`` broken at its level, with the time measured. The call is given up at the bound
        (``Session.within``): past it the verdict is known, and a server slow on one call costs
        the run no more than the bound. No answer is the same broken verdict, never an
        ``error``: a slow server answers late or not at all as the machine's load has it, and
        the rule judges its slowness either way. None when it went unanswered; the check then
        goes on while the server still answers. Other faults (a crash, garbage) end the check
        as they do anywhere."""
        expected = f"{what} answered within {within_ms:.0f} ms"
        try:
            with self.session.within(within_ms / 1000):
                answer = await send()
        except NoAnswerInTime as late:
            self.expect(rule, False, expected=expected, observed=str(late))
            await self._go_on_after(late)
            return None
        observed = f"answered in {answer.latency_ms:.0f} ms: {answer.summary()}"
        self.expect(rule, answer.latency_ms <= within_ms, expected=expected, observed=observed)
        return answer

    async def _go_on_after(self, fault: ServerFault) -> None:
        """After a call went unanswered, go on while the server still answers, else end the
        check with ``fault`` (the runner reconnects). A server that still answers may still be
        busy with the call, which no other check must pay for: the runner connects afresh (for
        a server it starts, a new process) before the next check (``unanswered``)."""
        if not await self.session.still_answers():
            raise fault
        self.unanswered = str(fault)

    def after_stop(self, judge: Callable[[], None]) -> bool:
        """Have ``judge`` (which calls ``expect_calls``, say) run once the harness has closed the
        run's connections and so stopped the target's server processes; False when it will
        not stop them (a server it did not start, or one in this process)."""
        if self._after_stop is None:
            return False
        self._after_stop.append(AfterStop(self.check, judge, self.ledger))
        return True

    async def wait(self, seconds: float) -> None:
        """Sleep on purpose (for an expiry, a window, a clock to tick), counted as waiting in
        the report's timing, so that a vendor sees why a run took the time it took."""
        seconds = max(0.0, seconds)
        started = time.monotonic()
        try:
            await anyio.sleep(seconds)
        finally:
            self.slept_s += time.monotonic() - started

    def not_applicable(self, rule: str, reason: str) -> None:
        """Record that the target's declared policy makes ``rule`` unreachable."""
        self.ledger.inapplicable(rule, self.check, reason)

    def undecided(self, reason: str, evidence: Any = None, rules: tuple[str, ...] = ()) -> None:
        """Stop the check: it cannot decide ``rules`` (default: all of its rules) for ``reason``,
        which is no fault of the server; ``evidence`` (the answer it could not read) is shown."""
        shown = "" if evidence is None else f"; observed {show(evidence)}"
        raise Undecided(f"{reason}{shown}", rules)

    def require(self, ok: bool, what: str, observed: Any = None) -> None:
        """Stop the check when a step it builds on did not work (its rules become ``error``)."""
        if not ok:
            raise CheckFailed(f"{what}; observed {show(observed)}")

    def unique(self, label: str) -> str:
        """A token nobody else uses in this run (also a distinctive search term)."""
        return f"{label}{self.run_id}x{self.check.replace('_', '')[:24]}x{next(self._unique)}"


def show(value: Any) -> str:
    """``value`` as evidence: an observation's summary, else compact JSON, at most 2,000 chars.
    What a contract read of an answer (a dataclass: a fact, a receipt) is shown as the JSON of
    its fields, named by its kind, never as a Python repr."""
    if isinstance(value, Observation):
        return value.summary()
    try:
        return json.dumps(_plain(value), ensure_ascii=False, sort_keys=True, default=str)[:2000]
    except (TypeError, ValueError):
        return repr(value)[:2000]


def _plain(value: Any) -> Any:
    """``value`` as JSON data: a dataclass as ``{"kind": its class, field: value, ...}`` with its
    shown fields that hold something; observations as their summaries."""
    if isinstance(value, Observation):
        return value.summary()
    if is_dataclass(value) and not isinstance(value, type):
        kept = {f.name: _plain(getattr(value, f.name)) for f in fields(value) if f.repr}
        return {"kind": type(value).__name__} | {
            name: item for name, item in kept.items() if not _empty(item)
        }
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return value


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | tuple | dict) and not value)
