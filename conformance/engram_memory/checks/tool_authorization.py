"""Per-tool authorization by the signed context's ``tools`` claim (signed-meta profile, DESIGN.md
"Host binding").

The seed's clause (HOST-011, must): each tool is authorized on its own, so under a binding that
enables a subset each enabled tool is served and a tool outside it is never served. This kit's
forms of it are profile rules: a disabled tool answers -32602 exactly like a tool that does not
exist (HOST-008), and tools/list lists exactly what the claim enables (HOST-009).
"""

from __future__ import annotations

from typing import Any

from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from ..host import ABSENT
from . import context_cases
from .calls import (
    NOT_A_TOOL,
    UNKNOWN_TOOL,
    claims,
    offered,
    send,
    signed_meta_only,
    subject,
)
from .context import CheckContext
from .registry import check


@check(rules=("HOST-011", "HOST-008"), requires=signed_meta_only)
async def tools_claim_authorizes_each_tool_on_its_own(ctx: CheckContext) -> None:
    """Each offered tool on a live target (a pending candidate, a current record, with an
    approval that holds when it needs one), so that serving it would succeed.

    HOST-011: enabled alone, it is answered as with every tool enabled (a control on another
    live target, made first: with every tool enabled the call is served, ok true, or the check
    stops, since a tool refused whatever the claim is never served either); under a claim
    enabling no tool, the other five or its neighbour alone (``context_cases.disabled``), it is
    never answered ok true.
    HOST-008: those refusals are -32602, the very answer to a call of a tool that does not
    exist."""
    unknown = await send(ctx, NOT_A_TOOL[0], {}, ctx.host.claims(ctx.identity, NOT_A_TOOL[0]))
    tools = await offered(ctx)
    for tool in tools:
        control_sent = await subject(ctx, tool)
        control = await send(ctx, tool, control_sent, claims(ctx, tool, control_sent))
        ctx.require_accepted(control, f"{tool} with every tool enabled (the control)")
        sent = await subject(ctx, tool)
        for case, disabling in context_cases.disabled(tool, list(ctx.spec.tools)).items():
            observed = await send(ctx, tool, sent, disabling.applied(claims(ctx, tool, sent)))
            what = f"{tool} with {case}"
            ctx.expect(
                "HOST-011",
                not envelopes.ok(observed),
                expected=f"{what}: never served (refused, not ok true)",
                observed=observed,
            )
            ctx.expect(
                "HOST-008",
                envelopes.code(observed) == UNKNOWN_TOOL and observed.answer() == unknown.answer(),
                expected=f"{what}: {UNKNOWN_TOOL}, the answer to a tool that does not exist "
                f"({unknown.summary()})",
                observed=observed,
            )
            if envelopes.ok(observed):  # served: the target has changed
                sent = await subject(ctx, tool)
        alone = await send(ctx, tool, sent, claims(ctx, tool, sent, tools=[tool]))
        ctx.expect(
            "HOST-011",
            alone.outcome == "result" and envelopes.code(alone) == envelopes.code(control),
            expected=f"{tool} served when the tools claim enables it alone, as with every tool "
            f"enabled ({envelopes.code(control) or 'ok'})",
            observed=alone,
        )


async def _listed(ctx: CheckContext, bound: dict[str, Any] | None) -> tuple[Observation, list[str]]:
    """tools/list with ``bound`` signed as its context (None: no context), and the names."""
    meta = None if bound is None else {ctx.host.signer.meta_key: ctx.host.signer.sign(bound)}
    observed, tools = await ctx.session.list_tools(meta)
    return observed, [tool.name for tool in tools]


@check(rules=("HOST-009",), requires=signed_meta_only)
async def tools_list_follows_the_tools_claim(ctx: CheckContext) -> None:
    """Without a context, or with no ``tools`` restriction, every offered tool is listed; a
    ``tools`` claim lists exactly what it enables, whatever the context's ``tool`` claim names
    (here the last offered tool, which most of the subsets leave out)."""
    tools = await offered(ctx)
    ctx.require(bool(tools), "some memory tool is offered", tools)
    _, names = await _listed(ctx, None)
    every = sorted(name for name in names if name in ctx.spec.tools)
    ctx.expect(
        "HOST-009",
        set(ctx.claimed_tools) <= set(every),
        expected=f"tools/list without a context lists the claimed {list(ctx.claimed_tools)}",
        observed=every,
    )
    half = tools[: max(1, len(tools) // 2)]
    cases: list[tuple[Any, list[str]]] = [
        (ABSENT, every),
        (None, every),
        (half, half),
        ([], []),
        *(([tool], [tool]) for tool in tools),
    ]
    for enabled, wanted in cases:
        bound = ctx.host.claims(ctx.identity, tools[-1], tools=enabled)
        observed, names = await _listed(ctx, bound)
        listed = sorted(name for name in names if name in ctx.spec.tools)
        ctx.expect(
            "HOST-009",
            observed.outcome == "result" and listed == sorted(wanted),
            expected=f"tools/list with the tools claim {enabled} lists {sorted(wanted)}",
            observed=observed if observed.outcome != "result" else listed,
        )


#: ``tool`` claims a host may send on tools/list, none of them the name of a tool called.
LISTING_TOOL_CLAIMS = ("tools/list", "", NOT_A_TOOL[0])


@check(rules=("HOST-022",), requires=signed_meta_only)
async def tools_list_takes_any_tool_claim(ctx: CheckContext) -> None:
    """On tools/list the context's ``tool`` claim is not checked: whatever string it holds, a
    context that verifies is answered as the same context naming an offered tool is (which
    list that is, HOST-009 judges)."""
    tools = await offered(ctx)
    ctx.require(bool(tools), "some memory tool is offered", tools)
    for enabled in (ABSENT, [tools[0]]):
        control, wanted = await _listed(ctx, ctx.host.claims(ctx.identity, tools[0], tools=enabled))
        ctx.require(control.outcome == "result", "tools/list with a valid context answers", control)
        for tool_claim in LISTING_TOOL_CLAIMS:
            bound = ctx.host.claims(ctx.identity, tool_claim, tools=enabled)
            observed, names = await _listed(ctx, bound)
            ctx.expect(
                "HOST-022",
                observed.outcome == "result" and sorted(names) == sorted(wanted),
                expected=f"tools/list with the tool claim {tool_claim!r} (tools claim {enabled}) "
                f"lists {sorted(wanted)}, as with the tool claim {tools[0]!r}",
                observed=observed if observed.outcome != "result" else sorted(names),
            )
