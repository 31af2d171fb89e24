"""Generated argument objects (``strategies``) answered as their labels say.

For each tool, Hypothesis draws objects broken by exactly one rule (``broken_arguments``); each
is adapted to the binding as the labelled examples are (``schema.adapt``: the bound purpose, a
fresh idempotency key, unless the breakage is about that field), sent with a human approval when
the tool needs one, and must be answered its labelled code. Objects the purpose check answers
first (``answered_first_by``) and those broken only against the clock are left to their
families, as their labelled examples are.

The search runs in a worker thread and each call on the harness's event loop, as the lifecycle
model check does (``model_check``), with the run's seed. It is bounded by ``EXAMPLES_PER_TOOL``
and by time (``SECONDS``, at most a share of what is left of the run's budget); shrinking stops
once ``SHRINK_PATIENCE`` examples in a row made no finding smaller. For every rule the report
keeps the smallest failing object met (by its JSON size) and its call.

A few valid objects per tool (``arguments``) must not be refused INVALID_SCHEMA or
INVALID_DIGEST. Which bound a server got wrong when it refuses one cannot be told from the
answer (an error names no rule); such a refusal is recorded against SCHEMA-004, the rule that
every field may take any value of the type, constant or enumeration its schema gives.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
import hypothesis
from engram_conformance.spec import Spec, load
from engram_conformance.strategies import Broken, arguments, broken_arguments
from engram_conformance.strategies.mutations import breakages
from hypothesis import given, reject

from ..exceptions import ServerFault
from ..host import Identity
from ..observation import Observation
from .bounded_search import (
    HarnessStopped,
    SearchFailure,
    explained,
    kept_if_smaller,
    quiet_settings,
    record_outcome,
    shown,
    stop_time,
)
from .context import CheckContext
from .host import SIGNED_META
from .registry import check
from .schema import REFUSALS, _json_text_holds, _objects_travel_as_is, _send, adapt
from .scope import ALL_TOOLS

EXAMPLES_PER_TOOL = 60
VALID_PER_TOOL = 5
SECONDS = 60.0
SHRINK_PATIENCE = 40
#: Rules a generated object cannot decide: one the SDK's JSON writer cannot send (unpaired
#: surrogates), and those that need several faults or calls (order of checks, nothing written).
NOT_HERE = frozenset({"SCHEMA-032", "SCHEMA-011", "XREF-010"})
VALID_RULE = "SCHEMA-004"


def _rules(spec: Spec) -> tuple[str, ...]:
    """The testable SCHEMA and XREF rules the breakage catalogues offer for the spec's valid
    examples (so, what ``broken_arguments`` can produce), but for ``NOT_HERE``."""
    offered = {
        breakage.rule
        for example in spec.examples
        if example.valid
        for breakage in breakages(spec, example.tool, example.arguments)
    }
    return tuple(
        sorted(
            rule
            for rule in offered - NOT_HERE
            if spec.rules[rule].family in ("SCHEMA", "XREF") and spec.rules[rule].testable
        )
    )


RULES = _rules(load())


class Mismatched(Exception):
    """A generated object was not answered its label (Hypothesis then shrinks it)."""


@dataclass(frozen=True)
class Finding:
    expected: str
    observed: str
    calls: tuple[dict[str, Any], ...]
    size: int


class Sender:
    """The search's side of the bridge: sends from the worker thread, keeps what it found."""

    def __init__(self, ctx: CheckContext, stop_at: float) -> None:
        self.ctx = ctx
        self.stop_at = stop_at
        self.passes: Counter[str] = Counter()
        self.findings: dict[str, Finding] = {}
        self.fault: ServerFault | None = None
        self.out_of_time = False
        self.since_smaller = 0
        self.shrinking = False  # the current Hypothesis run found something
        self.sent = 0
        self.unsent = 0

    def begin(self) -> None:
        """Before an example: reject it once the time, the patience or the server is spent."""
        if self.shrinking:
            self.since_smaller += 1
        if self.fault is not None:
            raise HarnessStopped(str(self.fault))
        if time.monotonic() >= self.stop_at or self.since_smaller > SHRINK_PATIENCE:
            self.out_of_time = True
            reject()

    def send(self, tool: str, sent: dict[str, Any], identity: Identity) -> Observation | None:
        """The call (None when JSON text cannot carry ``sent`` to this target)."""
        if not _json_text_holds(sent) and not _objects_travel_as_is(self.ctx):
            self.unsent += 1
            return None
        try:
            observed = anyio.from_thread.run(_send, self.ctx, tool, sent, identity)
        except ServerFault as fault:
            self.fault = fault
            raise HarnessStopped(str(fault)) from fault
        self.sent += 1
        return observed

    def found(self, rule: str, expected: str, observed: Observation, sent: Any) -> None:
        size = len(json.dumps(sent, ensure_ascii=False, default=str))
        finding = Finding(expected, shown(observed), (observed.to_json(),), size)
        self.shrinking = True
        if kept_if_smaller(self.findings, rule, finding):
            self.since_smaller = 0
        raise Mismatched(rule)

    def broken(self, tool: str) -> Callable[[Broken], None]:
        def judge(broken: Broken) -> None:
            self.begin()
            if (
                broken.rule not in RULES
                or broken.answered_first_by is not None
                or broken.clock_dependent
            ):
                return
            sent, identity = adapt(self.ctx, tool, broken.arguments, broken.pointer, "generated")
            observed = self.send(tool, sent, identity)
            if observed is None:
                return
            if observed.code == broken.code:
                self.passes[broken.rule] += 1
                return
            expected = (
                f"{broken.code} for a generated {tool} object that breaks {broken.rule}: "
                f"{broken.description} (Hypothesis seed {self.ctx.seed}, shrunk)"
            )
            self.found(broken.rule, expected, observed, sent)

        return judge

    def valid(self, tool: str) -> Callable[[dict[str, Any]], None]:
        def judge(generated: dict[str, Any]) -> None:
            self.begin()
            sent, identity = adapt(self.ctx, tool, generated, None, "generated")
            observed = self.send(tool, sent, identity)
            if observed is None:
                return
            if observed.code not in REFUSALS:
                self.passes[VALID_RULE] += 1
                return
            expected = (
                f"no {' or '.join(REFUSALS)} for a generated valid {tool} object "
                f"(Hypothesis seed {self.ctx.seed}, shrunk)"
            )
            self.found(VALID_RULE, expected, observed, sent)

        return judge

    def explains(self, error: BaseException) -> bool:
        """Whether what Hypothesis raised is only what the sender knows already: mismatches it
        kept, a fault, or examples rejected once the time or the patience was spent (also when
        Hypothesis replays its final example, which it then calls flaky)."""
        known = bool(self.findings) or self.out_of_time or self.fault is not None
        return explained(error, known, (Mismatched,))


def search(sender: Sender, seed: int, database: Path | None) -> None:
    """Every tool's broken and valid objects (in a worker thread), until done or out of time;
    each tool's failing objects kept under ``database``."""
    spec = sender.ctx.spec
    for tool in sorted(set(ALL_TOOLS) & set(spec.tools)):
        runs = {
            "broken": (given(broken_arguments(tool, spec))(sender.broken(tool)), EXAMPLES_PER_TOOL),
            "valid": (given(arguments(tool, spec))(sender.valid(tool)), VALID_PER_TOOL),
        }
        for kind, (run, examples) in runs.items():
            kept = None if database is None else database / f"{tool}-{kind}"
            test = hypothesis.seed(seed)(quiet_settings(kept, max_examples=examples)(run))
            sender.shrinking, sender.since_smaller = False, 0
            try:
                test()
            except Exception as error:
                if not sender.explains(error):
                    raise
            if sender.fault is not None:
                return


@check(rules=RULES, tools=ALL_TOOLS, profile="full", binding=SIGNED_META)
async def generated_arguments_are_answered_as_labelled(ctx: CheckContext) -> None:
    """Generated objects broken by one rule are answered their labelled code; generated valid
    ones are not refused by the argument checks."""
    sender = Sender(ctx, stop_time(ctx, SECONDS))
    database = None if ctx.example_db is None else ctx.example_db / ctx.check
    await anyio.to_thread.run_sync(search, sender, ctx.seed, database)
    record_outcome(
        ctx,
        RULES,
        ran=sender.sent > 0,
        fault=sender.fault,
        passes=sender.passes,
        passed="answered as labelled",
        failures={
            rule: SearchFailure(f.expected, f.observed, f.calls)
            for rule, f in sender.findings.items()
        },
    )
