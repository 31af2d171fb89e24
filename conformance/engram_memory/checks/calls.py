"""Valid calls and contexts a check sends: the arguments, claims and signed contexts of a call
of each tool, and the codes a refusal of them answers. The host binding, gate, check-order and
tool-authorization checks, and the argument and generated checks, share them.
"""

from __future__ import annotations

import copy
from typing import Any

from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from ..settings import BindingMode, Policy
from .context import ADMIT, CAPTURE, FORGET, GET, SEARCH, WITHDRAW, CheckContext

SIGNED_META = BindingMode.SIGNED_META


def signed_meta_only(policy: Policy) -> str | None:
    """A check's requirement (``@check(requires=...)``): the target binds by signed-meta, the
    only binding whose context a check can forge or break."""
    if policy.binding_mode == SIGNED_META:
        return None
    return f"needs the {SIGNED_META} binding; the target binds by {policy.binding_mode}"


CONTEXT_UNAVAILABLE = -32603
UNKNOWN_TOOL = -32602
#: Names in the memory namespace that are none of the six tools (maintenance is never a tool).
NOT_A_TOOL = ("engram_memory_rewind", "engram_memory_admin")
UNKNOWN_RECORD = "mem_" + "a" * 52
#: The tools whose ``arguments`` name a target nobody issued: called validly, NOT_FOUND.
LOOKUPS = (GET, ADMIT, WITHDRAW, FORGET)
DUPLICATE = "duplicate_exact"
ALL_TOOLS = (SEARCH, GET, CAPTURE, ADMIT, WITHDRAW, FORGET)


async def offered(ctx: CheckContext) -> list[str]:
    """The six tools the target claims and lists without a context, in the spec's order."""
    _, tools = await ctx.session.list_tools()
    listed = {tool.name for tool in tools}
    return [name for name in ctx.spec.tools if name in ctx.claimed_tools and name in listed]


def arguments(ctx: CheckContext, tool: str) -> dict[str, Any]:
    """Valid arguments of ``tool``; a target they name does not exist."""
    purpose = ctx.identity.purpose_ref
    if tool == SEARCH:
        return {"query": ctx.unique("query"), "purpose_ref": purpose}
    if tool == GET:
        return {"record_id": UNKNOWN_RECORD, "purpose_ref": purpose}
    if tool == CAPTURE:
        return ctx.capture_arguments()
    target = ctx.spec.tools[tool].target  # candidate_id or record_id
    sent = {
        target: UNKNOWN_RECORD if target == "record_id" else ctx.unique("candidate"),
        "idempotency_key": ctx.key(tool),
    }
    if tool in (WITHDRAW, FORGET):
        sent["reason_ref"] = "reason:conformance"
    return sent


async def subject(ctx: CheckContext, tool: str) -> dict[str, Any]:
    """Valid arguments of ``tool`` whose target exists: a pending candidate (request_admission,
    withdraw), a current record (get, forget); search and capture have no target to make."""
    sent = arguments(ctx, tool)
    if tool in (ADMIT, WITHDRAW):
        sent["candidate_id"] = await ctx.pending()
    elif tool in (GET, FORGET):
        sent["record_id"] = await ctx.accepted()
    return sent


def claims(ctx: CheckContext, tool: str, sent: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """Valid claims for this call, with a confirmation that holds when the tool needs one."""
    if ctx.needs_confirmation(tool) and "confirmation" not in overrides:
        overrides["confirmation"] = ctx.host.confirmation(tool, sent)
    return ctx.host.claims(ctx.identity, tool, **overrides)


async def send(
    ctx: CheckContext,
    tool: str,
    sent: Any,
    bound: dict[str, Any] | None,
    token: str | None = None,
) -> Observation:
    """The call with ``bound`` signed by the host as its context, or ``token`` instead;
    ``bound`` None and no token: the call carries no context at all."""
    if token is None and bound is not None:
        token = ctx.host.signer.sign(bound)
    meta = None if token is None else {ctx.host.signer.meta_key: token}
    return await ctx.session.call(tool, sent, meta, bound)


def first_time(observed: Observation) -> bool:
    """A success that is no replay: nothing of an earlier call had been kept."""
    value = envelopes.value(observed)
    return (
        envelopes.ok(observed)
        and value.get("replayed") is not True
        and value.get("status") != DUPLICATE
    )


async def require_answered(ctx: CheckContext, tool: str, *, valid_arguments: bool = False) -> None:
    """The control of a refusal of ``tool``: the call with valid arguments (``arguments``) and a
    valid context. It must pass the protocol checks (a result, not a JSON-RPC error), and with
    ``valid_arguments`` also the argument checks (ok, or NOT_FOUND for the target nobody
    issued), or the check stops: ``error``, the server accepts nothing."""
    sent = arguments(ctx, tool)
    control = await send(ctx, tool, sent, claims(ctx, tool, sent))
    if valid_arguments:
        accepted = envelopes.ok(control) or (
            tool in LOOKUPS and envelopes.code(control) == "NOT_FOUND"
        )
    else:
        accepted = control.outcome == "result"
    what = f"{tool} with valid arguments and context (the control)"
    ctx.require_accepted(control, what, accepted)


def expect_code(ctx: CheckContext, rule: str, observed: Observation, code: Any, what: str) -> bool:
    return ctx.expect(
        rule, envelopes.code(observed) == code, expected=f"{what}: {code}", observed=observed
    )


def with_purpose(
    ctx: CheckContext, tool: str, sent: dict[str, Any], purpose: str
) -> dict[str, Any]:
    """``sent`` with its purpose_ref argument (capture: in the payload) set to ``purpose``."""
    changed = copy.deepcopy(sent)
    *parents, name = (ctx.spec.tools[tool].purpose_argument or "").split("/")[1:]
    holder = changed
    for part in parents:
        holder = holder[part]
    holder[name] = purpose
    return changed
