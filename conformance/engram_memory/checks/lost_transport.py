"""Idempotency over clients of the check's own (profile ``full``): answers lost by closing a
transport (IDEM-012), and identical mutations over several sessions at once (IDEM-013).

The quick checks of those rules stay on the one shared session: they abandon a request
(``notifications/cancelled``) and multiplex identical requests. Here each extra client is a
separate MCP session (``Session.extra_client``): over stdio a server process of its own on the
same state, over HTTP another session with the same server, so a key's reservation must hold
across sessions and processes. With a per-identity binding the clients are opened for the check
identity's claims; with signed-meta the claims travel in each call's ``_meta``. A client that
cannot be opened, or breaks before the harness closes it, is a fault of the server.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from functools import partial

from mcp import Client

from ...observation import Observation
from ...session import at_once
from .context import CAPTURE, CheckContext
from .delivery import (
    MUTATIONS,
    SETTLE_S,
    Send,
    definite,
    expect_one_definite_effect,
    expect_one_effect,
    prepared,
)
from .registry import check

#: How long the harness lets the requests be written before it closes their transport.
WRITTEN_AFTER_S = 0.005
#: Extra sessions besides the shared one that send the same mutation at once (IDEM-013).
EXTRA_SESSIONS = 3


@check(rules=("IDEM-012",), tools=MUTATIONS, profile="full", waits=True)
async def retry_after_a_closed_transport_takes_effect_once(ctx: CheckContext) -> None:
    """The four mutations sent at once over an extra client whose transport the harness closes
    right after (no cancellation is sent: whether the server performed them is unknown to the
    harness, and their answers are lost). After a short pause each is retried twice on the
    shared session (``expect_one_definite_effect``)."""
    calls = {tool: await prepared(ctx, tool, ctx.key(tool)) for tool in MUTATIONS}
    claims = ctx.host.claims(ctx.identity, CAPTURE)
    await ctx.session.lose_answers(claims, calls.values(), WRITTEN_AFTER_S)
    await ctx.wait(SETTLE_S)
    for tool, call in calls.items():
        await expect_one_definite_effect(ctx, tool, call, "its transport was closed")


@check(rules=("IDEM-013",), tools=MUTATIONS, profile="full", waits=True)
async def identical_calls_over_several_sessions_take_effect_once(ctx: CheckContext) -> None:
    """Each mutation sent at once over the shared session and over ``EXTRA_SESSIONS`` clients
    of their own (``expect_one_effect``)."""
    claims = ctx.host.claims(ctx.identity, CAPTURE)
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(ctx.session.extra_client(claims))
            for _ in range(EXTRA_SESSIONS)
        ]
        for tool in MUTATIONS:
            call = await prepared(ctx, tool, ctx.key(tool))
            routes = [partial(definite, call), *(partial(_over, ctx, c, call) for c in clients)]
            answers = await at_once(routes)
            expect_one_effect(ctx, tool, answers, f"at once over {len(routes)} sessions")


async def _over(ctx: CheckContext, client: Client, call: Send) -> Observation:
    with ctx.session.over(client):
        return await definite(call)
