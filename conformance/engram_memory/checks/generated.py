"""Generated argument objects (``strategies``) answered as their labels say.

For each tool, Hypothesis draws objects broken by exactly one rule (``broken_arguments``); each
is prepared as the labelled invalid examples are (``argument_sending.prepare``: the bound
purpose, a fresh idempotency key, a live target, no retention, reconciliation, page cursor or
semantic channel that other checks would refuse first, unless the breakage is about that field),
sent with a human approval when the tool needs one, and must be refused as an argument error:
its labelled code or the other code of the seed table's row, SCHEMA-035 judging which (SCHEMA-001
wants INVALID_SCHEMA itself). An answer of a check the object may meet first (a policy refusal
of the broken retention, NOT_FOUND of a broken target, gate_failed where no approval can be bound to
it) leaves the rule undecided (-32603 for a purpose_ref that is no string holds it: the seed
makes any purpose mismatch a protocol refusal) and is judged by the rule that orders the checks
(HOST-016, GATE-011), as for the examples. Objects the purpose
check answers first (``answered_first_by``) and those broken only against the clock are left to
their families, as their labelled examples are. Objects the SDK's JSON writer cannot write (a
lone surrogate, SCHEMA-032) go over the session's raw channel, byte-exact.

The search runs in a worker thread and each call on the harness's event loop, as the lifecycle
model check does (``model_check``), with the run's seed. It is bounded by ``EXAMPLES_PER_TOOL``
and by time (``SECONDS``, at most a share of what is left of the run's budget); shrinking stops
once ``SHRINK_PATIENCE`` examples in a row made no finding smaller. For every rule the report
keeps the smallest failing object met (by its JSON size), its call, and its Hypothesis choices
with the part of the search that made them (``Reproduction.part``: the tool and ``broken`` or
``valid``). Given one failing example (``ctx.example``: a re-check, a reproduction file), the
check runs that part's test on those choices alone (``hypothesis.reproduce_failure``), after
that tool's control only: a replay that no longer fails is a pass, one Hypothesis cannot make
again (the strategies changed since) leaves the rules undecided, saying why.

A few valid objects per tool (``arguments``) must not be refused INVALID_SCHEMA or
INVALID_DIGEST. They set the bounds and encodings this kit decides, many at once, and which one
a server got wrong when it refuses one cannot be told from the answer (an error names no rule):
such a refusal is recorded against SCHEMA-039 (profile).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
import hypothesis
from engram_conformance.spec.engram_memory import Spec
from engram_conformance.strategies.engram_memory import (
    Broken,
    arguments,
    broken_arguments,
    envelopes,
)
from hypothesis import given, reproduce_failure
from hypothesis import strategies as st
from hypothesis.errors import DidNotReproduce, InvalidArgument

from ...bounded_search import (
    Finding,
    HarnessStopped,
    SearchFailure,
    SearchOver,
    current_choices,
    explained,
    kept_if_smaller,
    quiet_settings,
    record_outcome,
    reproduction,
    shown,
    stop_time,
)
from ...exceptions import ServerFault
from ...ledger import Reproduction
from ...observation import Observation
from ..host import Identity
from .argument_examples import CHECK_ORDER, EXACT_CODE_RULES, GATE_ORDER, SEVERAL_BOUNDS
from .argument_sending import (
    REFUSALS,
    LiveTargets,
    Prepared,
    adapt,
    answered_earlier,
    order_rules,
    require_accepted_example,
    send,
    sent_broken,
)
from .calls import ALL_TOOLS, signed_meta_only
from .context import ARGUMENT_ERRORS, CODE_IN_ROW, CheckContext
from .registry import check

EXAMPLES_PER_TOOL = 60
VALID_PER_TOOL = 5
SECONDS = 60.0
SHRINK_PATIENCE = 40
#: The parts of each tool's search, in their order: objects broken by one rule, valid ones.
KINDS = ("broken", "valid")
VALID_RULE = SEVERAL_BOUNDS
#: The rules generated objects break: the testable SCHEMA and XREF rules that the breakage
#: catalogues offer for the spec's valid examples (what ``broken_arguments`` can produce), but
#: for those that need several faults or calls (SCHEMA-011, XREF-010: the order of the argument
#: checks, nothing written). Written out, as every check's rules are: working them out from the
#: catalogues enumerates some 33,000 breakages, a third of a second at every start of the kit;
#: ``test_generated_check`` works them out and compares.
RULES = (
    "SCHEMA-001",
    "SCHEMA-002",
    "SCHEMA-003",
    "SCHEMA-004",
    "SCHEMA-005",
    "SCHEMA-006",
    "SCHEMA-007",
    "SCHEMA-008",
    "SCHEMA-009",
    "SCHEMA-010",
    "SCHEMA-012",
    "SCHEMA-013",
    "SCHEMA-014",
    "SCHEMA-015",
    "SCHEMA-016",
    "SCHEMA-017",
    "SCHEMA-018",
    "SCHEMA-019",
    "SCHEMA-020",
    "SCHEMA-021",
    "SCHEMA-022",
    "SCHEMA-023",
    "SCHEMA-024",
    "SCHEMA-025",
    "SCHEMA-026",
    "SCHEMA-027",
    "SCHEMA-028",
    "SCHEMA-029",
    "SCHEMA-030",
    "SCHEMA-031",
    "SCHEMA-032",
    "SCHEMA-034",
    "SCHEMA-036",
    "XREF-001",
    "XREF-002",
    "XREF-003",
    "XREF-004",
    "XREF-005",
    "XREF-006",
    "XREF-007",
    "XREF-008",
    "XREF-009",
    "XREF-011",
)
#: What the check records: the rules generated objects break, the code of the row, the rule of
#: valid objects, and the order of the checks a broken object may meet first.
CHECK_RULES = (*RULES, CODE_IN_ROW, VALID_RULE, CHECK_ORDER, GATE_ORDER)


def judgements(
    case: Prepared, rule: str, code: str, observed: Observation, what: str
) -> list[tuple[str, bool, str]]:
    """(rule, holds, what it wants) for the answer to an object broken by ``rule``, as the
    examples check records it (``argument_sending.judge_refusal`` with
    ``CheckContext.expect_argument_refusal``); counted here, not recorded, so that the search
    keeps the smallest failure of each rule."""
    earlier = answered_earlier(case, observed)
    if earlier is not None:
        held = [(rule, True, f"{what}: {envelopes.code(observed)}")] if earlier.seed_answer else []
        before = (
            f"{what}: the argument checks ({code}) "
            f"before the check answering {envelopes.code(observed)}"
        )
        return [*held, (earlier.rule, False, before)]
    row = (code,) if rule in EXACT_CODE_RULES or code not in ARGUMENT_ERRORS else ARGUMENT_ERRORS
    if envelopes.code(observed) not in row:
        return [(rule, False, f"{' or '.join(row)} for {what}")]
    found = [(rule, True, f"{what}: refused")]
    if len(row) > 1:
        found.append((CODE_IN_ROW, envelopes.code(observed) == code, f"{code} for {what}"))
    first = f"{what}: the argument checks first"
    return [*found, *((order, True, first) for order in order_rules(case))]


class Mismatched(Exception):
    """A generated object was not answered its label (Hypothesis then shrinks it)."""


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
        self.live = LiveTargets(ctx)
        self.part: str | None = None  # the search's part running: "engram_memory_get/valid"

    def spent(self) -> bool:
        """Whether the time or the patience is spent."""
        return time.monotonic() >= self.stop_at or self.since_smaller > SHRINK_PATIENCE

    def begin(self) -> None:
        """Before an example: the part's search ends once the time or the patience is spent
        (``SearchOver``), or the server is."""
        if self.shrinking:
            self.since_smaller += 1
        if self.fault is not None:
            raise HarnessStopped(str(self.fault))
        if self.spent():
            self.out_of_time = True
            raise SearchOver

    def unless_spent(self, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        """``strategy``, drawing nothing once the time, the patience or the server is spent:
        the part's search ends before the example draws (drawing a capture of half a mebibyte
        and its breakages takes a while)."""

        @st.composite
        def drawn(draw: Any) -> Any:
            if self.spent() or self.fault is not None:
                self.out_of_time = True
                raise SearchOver
            return draw(strategy)

        return drawn()

    def send(self, tool: str, sent: dict[str, Any], identity: Identity) -> Observation:
        """A valid object's call."""
        return self._on_loop(send, self.ctx, tool, sent, identity)

    def send_broken(self, tool: str, broken: Broken) -> tuple[Prepared, Observation]:
        """A broken object's call, prepared as the labelled invalid examples are."""
        arguments, pointer = broken.arguments, broken.pointer
        live = self.live
        return self._on_loop(sent_broken, self.ctx, live, tool, arguments, pointer, "generated")

    def _on_loop(self, call: Callable[..., Any], *arguments: Any) -> Any:
        try:
            answered = anyio.from_thread.run(call, *arguments)
        except ServerFault as fault:
            self.fault = fault
            raise HarnessStopped(str(fault)) from fault
        self.sent += 1
        return answered

    def found(self, rule: str, expected: str, observed: Observation, sent: Any) -> None:
        size = len(json.dumps(sent, ensure_ascii=False, default=str))
        calls = (observed.to_json(),)
        choices, part = current_choices(), self.part
        finding = Finding(expected, shown(observed), calls, size, choices=choices, part=part)
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
            case, observed = self.send_broken(tool, broken)
            what = (
                f"a generated {tool} object that breaks {broken.rule}: {broken.description} "
                f"(Hypothesis seed {self.ctx.seed}, shrunk)"
            )
            verdicts = judgements(case, broken.rule, broken.code, observed, what)
            self.passes.update(rule for rule, ok, _ in verdicts if ok)
            for rule, ok, expected in verdicts:
                if not ok:
                    self.found(rule, expected, observed, case.arguments)

        return judge

    def valid(self, tool: str) -> Callable[[dict[str, Any]], None]:
        def judge(generated: dict[str, Any]) -> None:
            self.begin()
            sent, identity = adapt(self.ctx, tool, generated, None, "generated")
            observed = self.send(tool, sent, identity)
            if envelopes.code(observed) not in REFUSALS:
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
        kept, a fault, or, once the time or the patience was spent, a final replay of its
        example that Hypothesis calls flaky."""
        known = bool(self.findings) or self.out_of_time or self.fault is not None
        return explained(error, known, (Mismatched,))


def part_test(sender: Sender, tool: str, kind: str, database: Path | None) -> Callable[[], None]:
    """The Hypothesis test of one part of the search: ``tool``'s broken or valid objects
    (``kind``), seeded with the run's seed, its failing objects kept under ``database``."""
    spec = sender.ctx.spec
    if kind == "broken":
        strategy, examples = broken_arguments(tool, spec), EXAMPLES_PER_TOOL
        judge: Callable[[Any], None] = sender.broken(tool)
    else:
        strategy, examples, judge = arguments(tool, spec), VALID_PER_TOOL, sender.valid(tool)
    sender.part = f"{tool}/{kind}"
    run = given(sender.unless_spent(strategy))(judge)
    return hypothesis.seed(sender.ctx.seed)(quiet_settings(database, max_examples=examples)(run))


def searched_tools(spec: Spec) -> list[str]:
    """The tools the search sends objects to, in its order."""
    return sorted(set(ALL_TOOLS) & set(spec.tools))


def search(sender: Sender, database: Path | None) -> None:
    """Every tool's broken and valid objects (in a worker thread), until done or out of time;
    each part's failing objects kept under ``database``."""
    for tool in searched_tools(sender.ctx.spec):
        for kind in KINDS:
            kept = None if database is None else database / f"{tool}-{kind}"
            test = part_test(sender, tool, kind, kept)
            sender.shrinking, sender.since_smaller = False, 0
            try:
                test()
            except SearchOver:
                pass  # the next part searches if the time is left
            except Exception as error:
                if not sender.explains(error):
                    raise
            if sender.fault is not None:
                return


def named_part(spec: Spec, example: Reproduction) -> tuple[str, str] | None:
    """The tool and kind of objects of the part of the search ``example`` names, if it names
    one of this search's."""
    tool, _, kind = (example.part or "").partition("/")
    return (tool, kind) if tool in searched_tools(spec) and kind in KINDS else None


def replay(sender: Sender, tool: str, kind: str, example: Reproduction) -> str | None:
    """Run the one failing example of ``example`` (in a worker thread): its part's test on its
    choices. None once it ran, whether it failed again or passed (or the time or the server
    stopped it: the outcome says so); else why Hypothesis could not make it again."""
    blob = example.choices.encode("ascii")
    test = reproduce_failure(example.hypothesis, blob)(part_test(sender, tool, kind, None))
    try:
        test()
    except SearchOver:
        return None  # the time or the server was spent: the outcome says so
    except (DidNotReproduce, InvalidArgument) as error:
        # Hypothesis did not see it fail: a pass once it made its call, but an example that
        # made none (or had no choices to make) is not the one that failed
        ran = sender.sent > 0 or sender.out_of_time or sender.fault is not None
        return None if ran else str(error)
    except Exception as error:
        if not sender.explains(error):
            raise
    return None


@check(rules=CHECK_RULES, tools=ALL_TOOLS, profile="full", requires=signed_meta_only, alone=True)
async def generated_arguments_are_answered_as_labelled(ctx: CheckContext) -> None:
    """Generated objects broken by one rule are answered their labelled code; generated valid
    ones are not refused by the argument checks. Each tool's minimal valid example must be
    accepted first (the control of its refusals). Given a failing example (``ctx.example``),
    only that example is sent again, after its tool's control."""
    sender = await _searched(ctx) if ctx.example is None else await _replayed(ctx, ctx.example)
    if sender is None:
        return
    record_outcome(
        ctx,
        CHECK_RULES,
        ran=sender.sent > 0,
        fault=sender.fault,
        passes=sender.passes,
        passed="answered as labelled",
        failures={
            rule: SearchFailure(f.expected, f.observed, f.calls, reproduction(ctx.check, f))
            for rule, f in sender.findings.items()
        },
    )


async def _searched(ctx: CheckContext) -> Sender:
    """The whole search, after every tool's control."""
    for tool in searched_tools(ctx.spec):
        await require_accepted_example(ctx, tool)
    sender = Sender(ctx, stop_time(ctx, SECONDS))
    database = None if ctx.example_db is None else ctx.example_db / ctx.check
    await anyio.to_thread.run_sync(search, sender, database)
    return sender


async def _replayed(ctx: CheckContext, example: Reproduction) -> Sender | None:
    """``example`` sent again, after its tool's control; None when it cannot be made again:
    then the check's rules stay undecided, saying why (the failure it replays stands)."""
    part = named_part(ctx.spec, example)
    why: str | None = f"it names no part of this search ({example.part!r})"
    if part is not None:
        await require_accepted_example(ctx, part[0])
        sender = Sender(ctx, stop_time(ctx, SECONDS))
        why = await anyio.to_thread.run_sync(replay, sender, *part, example)
        if why is None:
            return sender
    for rule in CHECK_RULES:
        ctx.ledger.errored(rule, ctx.check, f"the failing example could not be replayed: {why}")
    return None
