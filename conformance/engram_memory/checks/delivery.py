"""Sending mutations and judging their effect: a fresh target for each, the same call again and
again (a definite answer, past MUTATION_OUTCOME_UNKNOWN), calls at once, answers lost on the way.
The idempotency, lost-transport, scope and model checks share them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from engram_conformance.strategies.engram_memory import envelopes
from engram_conformance.strategies.engram_memory.answers import (
    field,
    is_replay_of,
    says_first,
    says_replay,
)
from engram_conformance.strategies.engram_memory.machine_base import TARGET_FIELD, UNKNOWN_RECORD

from ...observation import Observation
from ...session import at_once
from ..host import Identity
from .context import ADMIT, CAPTURE, FORGET, GET, WITHDRAW, CheckContext

MUTATIONS = (CAPTURE, ADMIT, WITHDRAW, FORGET)
REASON = "reason:conformance"
UNKNOWN_OUTCOME = "MUTATION_OUTCOME_UNKNOWN"
#: Retries of a call answered MUTATION_OUTCOME_UNKNOWN before the check gives up on it.
RETRIES = 3
#: How long the harness waits for an answer it then abandons, and then lets the server finish
#: what it may have started before retrying (IDEM-012; overlapping calls are IDEM-013's subject).
ABANDON_AFTER_S = 0.001
SETTLE_S = 0.05

Send = Callable[[], Awaitable[Observation]]


async def send(
    ctx: CheckContext,
    tool: str,
    target: Any,
    key: str,
    *,
    identity: Identity | None = None,
    reason_ref: str = REASON,
) -> Observation:
    """One request_admission, withdraw or forget of ``target`` (withdraw and forget confirmed)."""
    if tool == ADMIT:
        return await ctx.admit(target, key=key, identity=identity)
    arguments = {TARGET_FIELD[tool]: target, "idempotency_key": key, "reason_ref": reason_ref}
    return await ctx.confirmed(tool, arguments, identity=identity)


async def new_target(ctx: CheckContext, tool: str, identity: Identity | None = None) -> str:
    """A fresh target ``tool`` can act on: a current record for forget, else a pending candidate."""
    make = ctx.accepted if tool == FORGET else ctx.pending
    return await make(identity=identity)


def unknown_target(ctx: CheckContext, tool: str) -> str:
    """An id of the target's kind that no server issued."""
    return UNKNOWN_RECORD if tool in (GET, FORGET) else ctx.unique("cand-unknown")


async def kept_its_state(
    ctx: CheckContext, target: Any, *, record: bool, identity: Identity | None = None
) -> tuple[bool, Observation]:
    """Whether a record is still current (get returns it) or a candidate still pending (a
    withdraw with a fresh key ends it from pending), and the probe's answer. ``target``: the id
    as the server answered it (``send``)."""
    if record:
        answer = await ctx.get(target, identity=identity)
        return envelopes.ok(answer), answer
    answer = await send(ctx, WITHDRAW, target, ctx.key("probe"), identity=identity)
    return (
        envelopes.ok(answer)
        and field(envelopes.value(answer), "receipt").get("from_state") == "pending"
    ), answer


async def prepared(
    ctx: CheckContext,
    tool: str,
    key: str,
    *,
    identity: Identity | None = None,
    capture: dict[str, Any] | None = None,
) -> Send:
    """A mutation with fixed arguments (on a fresh target of its own), to be sent and re-sent."""
    if tool == CAPTURE:
        arguments = capture or ctx.capture_arguments(key=key, identity=identity)
        return partial(ctx.capture, arguments, identity=identity)
    target = await new_target(ctx, tool, identity)
    return partial(send, ctx, tool, target, key, identity=identity)


async def definite(call: Send) -> Observation:
    """The call's answer, sent again (same key and arguments) while it is an unknown outcome."""
    answer = await call()
    for _ in range(RETRIES):
        if envelopes.code(answer) != UNKNOWN_OUTCOME:
            break
        answer = await call()
    return answer


async def concurrently(call: Send, times: int) -> list[Observation]:
    """``times`` identical calls in flight at once over the session (MCP multiplexes requests)."""
    return await at_once([partial(definite, call)] * times)


async def expect_one_definite_effect(ctx: CheckContext, tool: str, call: Send, lost: str) -> None:
    """IDEM-012: ``call``, whose answer was lost (``lost`` says how), retried twice with the
    same key and arguments, each retry repeated while it answers MUTATION_OUTCOME_UNKNOWN: the
    first retry must be a first result or a replay, the second a replay of the same effect."""
    retry = await definite(call)
    again = await definite(call)
    ctx.expect(
        "IDEM-012",
        (says_first(tool, retry) or says_replay(tool, retry)) and is_replay_of(tool, again, retry),
        expected=f"{tool} retried after {lost}: one definite effect, the second retry a replay "
        "of the first",
        observed=[retry.summary(), again.summary()],
    )


def expect_one_effect(ctx: CheckContext, tool: str, answers: list[Observation], sent: str) -> None:
    """IDEM-013: the ``answers`` of identical calls in flight together (``sent`` says how),
    each retried while MUTATION_OUTCOME_UNKNOWN, answer one effect: one of them is the first
    result at most, and every other a replay of it."""
    first = next((a for a in answers if says_first(tool, a)), answers[0])
    replays = [a for a in answers if a is not first and is_replay_of(tool, a, first)]
    ctx.expect(
        "IDEM-013",
        envelopes.ok(first) and len(replays) == len(answers) - 1,
        expected=f"{len(answers)} identical {tool} calls {sent}: one effect, answered once as "
        "a first result at most and otherwise as replays",
        observed=[answer.summary() for answer in answers],
    )
