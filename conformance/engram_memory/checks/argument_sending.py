"""Adapting an argument case to the call, sending it, and judging the refusal.

An example is adapted to the call's binding only where it must be: the purpose_ref argument is
the bound purpose and a mutation gets a fresh idempotency key, unless that field is what the
example is about (``adapt``). An invalid example is also freed of what a check the seed does not
order after the argument checks would refuse first (``prepare``): the retention and
reconciliation of a capture (host policy: UNAUTHORIZED), a search's page cursor (STALE_PAGE) and
a semantic channel the target lacks (RANKING_UNAVAILABLE), and a made-up target (NOT_FOUND: a
live one of the check's scope is sent instead). Where the example is about such a field, or no
human approval can be bound to the call (gate_failed), or its purpose_ref is no string (the seed
makes any purpose mismatch a protocol refusal, -32603), that other answer leaves the example's
rule undecided (-32603 holds it, being the seed's own answer) and is recorded against the
profile rule that orders the checks (HOST-016, GATE-011).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

from engram_conformance.spec.engram_memory import (
    Example,
    Spec,
    instant,
    validate_arguments,
    wall_clock_ms,
)
from engram_conformance.spec.pointers import to_pointer
from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from ..host import Identity
from .argument_examples import (
    ABSENT,
    CHECK_ORDER,
    EXACT_CODE_RULES,
    GATE_ORDER,
    KEY,
    base,
    places,
)
from .calls import CONTEXT_UNAVAILABLE
from .context import (
    ADMIT,
    ARGUMENT_ERRORS,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
    CheckContext,
    CheckFailed,
)

REFUSALS = ARGUMENT_ERRORS
GATE_FAILED = "gate_failed"
#: The target each tool looks up: a made-up one is NOT_FOUND to a server that looks first.
LOOKUP_TARGETS = {
    ADMIT: "/candidate_id",
    WITHDRAW: "/candidate_id",
    FORGET: "/record_id",
    GET: "/record_id",
}
#: The parts of a capture that host policy judges (retention ceiling and retain permission,
#: consent to reconciliation families): UNAUTHORIZED to a server that judges them first.
POLICY_FACETS = ("/payload/retention", "/payload/reconciliation")


# adapting a case to the call ------------------------------------------------------------------
def adapted(ctx: CheckContext, example: Example) -> tuple[dict[str, Any], Identity]:
    return adapt(ctx, example.tool, example.arguments, _subject(ctx.spec, example), example.name)


def _subject(spec: Spec, example: Example) -> str | None:
    """The field an example is about: an invalid one's pointer, or the one place where a valid
    one differs from the tool's minimal example."""
    if not example.valid:
        return example.pointer
    differences = places(spec, example)
    return to_pointer(differences[0][0]) if len(differences) == 1 else None


def adapt(
    ctx: CheckContext, tool_name: str, sent: dict[str, Any], subject: str | None, label: str
) -> tuple[dict[str, Any], Identity]:
    """A copy of ``sent`` for this binding, and the identity to send it as, ``subject`` being
    the field it is about.

    The purpose_ref argument becomes the bound purpose (the purpose check answers first
    otherwise); when the case is about its purpose, the identity is bound to that purpose
    instead. A mutation's idempotency key is fresh unless the case is about its key.
    """
    arguments = copy.deepcopy(sent)
    identity = ctx.identity
    tool = ctx.spec.tools[tool_name]
    purpose = tool.purpose_argument
    holder, field = _parent(arguments, purpose) if purpose else (None, "")
    if holder is not None and isinstance(holder.get(field), str):
        if subject == purpose:
            identity = replace(identity, purpose_ref=holder[field])
        else:
            holder[field] = identity.purpose_ref
    if (
        tool.idempotency_key
        and subject != KEY
        and isinstance(arguments.get("idempotency_key"), str)
    ):
        arguments["idempotency_key"] = ctx.key(label)
    return arguments, identity


def _parent(document: Any, pointer: str) -> tuple[dict[str, Any] | None, str]:
    """The object holding the last step of ``pointer``, and that step (None if absent)."""
    *steps, last = pointer.split("/")[1:]
    for step in steps:
        document = document.get(step) if isinstance(document, dict) else None
    return (document if isinstance(document, dict) else None), last


def _inside(subject: str | None, place: str) -> bool:
    """Whether the field ``subject`` is ``place`` or lies within it (the root lies in none)."""
    if not subject:
        return False
    return subject == place or subject.startswith(f"{place}/")


@dataclass(frozen=True)
class Earlier:
    """An answer of a check that a server may make before the argument checks on a call."""

    #: the profile rule that orders the argument checks before it
    rule: str
    #: whether the seed itself gives that answer for the case (it then holds the case's rule)
    seed_answer: bool = False


@dataclass(frozen=True)
class Prepared:
    """An argument object broken by one rule, ready to send: the identity to send it as, the
    human approval it carries (None when its tool needs none), and by code the answers of
    checks a server may make first on this call (``Earlier``)."""

    arguments: dict[str, Any]
    identity: Identity
    approval: dict[str, Any] | None
    earlier: dict[str | int, Earlier]


class LiveTargets:
    """Targets of the check's scope that exist (a pending candidate, a current record), made on
    first use and again once a call used one up; None when none can be made."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self._made: dict[str, str | None] = {}

    async def of(self, tool: str) -> str | None:
        if tool not in self._made:
            pending = LOOKUP_TARGETS[tool] == "/candidate_id"
            make = self.ctx.pending if pending else self.ctx.accepted
            try:
                self._made[tool] = await make()
            except CheckFailed:
                self._made[tool] = None
        return self._made[tool]

    def after(self, tool: str, observed: Observation) -> None:
        """Forget the target of ``tool`` once a call may have changed it (the server took a
        transition)."""
        changes = self.ctx.spec.tools[tool].kind != "read"
        if changes and envelopes.ok(observed) and self._made.get(tool) is not None:
            del self._made[tool]


async def prepare(
    ctx: CheckContext,
    live: LiveTargets,
    tool: str,
    sent: dict[str, Any],
    subject: str | None,
    label: str,
) -> Prepared:
    """``sent`` (broken at ``subject``) adapted (``adapt``) and freed of what other checks would
    refuse first, unless ``subject`` is there; what they may answer then is ``earlier``."""
    arguments, identity = adapt(ctx, tool, sent, subject, label)
    earlier: dict[str | int, Earlier] = {}
    if tool == CAPTURE:
        _within_policy(ctx, arguments, subject, earlier)
    if tool == SEARCH:
        _fresh_search(ctx, arguments, subject, earlier)
    if tool in LOOKUP_TARGETS:
        await _live_target(ctx, live, tool, arguments, subject, earlier)
    purpose = ctx.spec.tools[tool].purpose_argument
    if purpose is not None:
        holder, field = _parent(arguments, purpose)
        if (holder or {}).get(field, ABSENT) != identity.purpose_ref:
            earlier[CONTEXT_UNAVAILABLE] = Earlier(CHECK_ORDER, seed_answer=True)
    approval = None
    if ctx.needs_confirmation(tool):
        approval, bound = _approval(ctx, tool, arguments)
        if not bound:
            earlier[GATE_FAILED] = Earlier(GATE_ORDER)
    return Prepared(arguments, identity, approval, earlier)


def _within_policy(
    ctx: CheckContext, arguments: dict[str, Any], subject: str | None, earlier: dict[Any, Any]
) -> None:
    """A capture without the retention and reconciliation that host policy judges, unless the
    case is about them; then their other fields as the policy permits."""
    payload = arguments.get("payload")
    if not isinstance(payload, dict):
        return
    for facet in POLICY_FACETS:
        name = facet.rsplit("/", 1)[1]
        if name not in payload:
            continue
        if _inside(subject, facet):
            earlier["UNAUTHORIZED"] = Earlier(CHECK_ORDER)
        else:
            del payload[name]
    retention = payload.get("retention")
    if not isinstance(retention, dict):
        return
    retain = retention.get("derivative_rule") == "retain" and not ctx.policy.retain_allowed
    if retain and subject != "/payload/retention/derivative_rule":
        retention["derivative_rule"] = "make-ineligible"
    if "expires_at" in retention and subject != "/payload/retention/expires_at":
        half_ceiling_ms = max(1, ctx.policy.retention_ceiling_s * 500)
        retention["expires_at"] = instant(wall_clock_ms() + half_ceiling_ms)


def _fresh_search(
    ctx: CheckContext, arguments: dict[str, Any], subject: str | None, earlier: dict[Any, Any]
) -> None:
    """A search without a page cursor (STALE_PAGE) and asking only for channels the target
    has (RANKING_UNAVAILABLE), unless the case is about them."""
    if "page_cursor" in arguments:
        if _inside(subject, "/page_cursor"):
            earlier["STALE_PAGE"] = Earlier(CHECK_ORDER)
        else:
            del arguments["page_cursor"]
    policy = arguments.get("capability_policy")
    if policy is None:
        return
    if _inside(subject, "/capability_policy"):
        earlier["RANKING_UNAVAILABLE"] = Earlier(CHECK_ORDER)
    channels = policy.get("minimum_channels") if isinstance(policy, dict) else None
    semantic = channels == "lexical_and_semantic" and not ctx.policy.semantic_channel
    if semantic and subject != "/capability_policy/minimum_channels":
        policy["minimum_channels"] = "lexical"


async def _live_target(
    ctx: CheckContext,
    live: LiveTargets,
    tool: str,
    arguments: dict[str, Any],
    subject: str | None,
    earlier: dict[Any, Any],
) -> None:
    """The target made live, unless the case is about it (or none can be made); a made-up
    target is NOT_FOUND to a server that looks it up first."""
    target = LOOKUP_TARGETS[tool]
    name = target[1:]
    if name in arguments and _inside(subject, target):
        await _around_live(ctx, live, tool, arguments, name)
    elif name in arguments:
        made = await live.of(tool)
        if made is not None:
            arguments[name] = made
            return
    earlier["NOT_FOUND"] = Earlier(CHECK_ORDER)


async def _around_live(
    ctx: CheckContext, live: LiveTargets, tool: str, arguments: dict[str, Any], name: str
) -> None:
    """A broken target that holds the minimal example's target (with a newline appended, say)
    holds a live one instead, where it still breaks the same rule at the same place: a server
    that repairs the target then finds it, and is seen taking it."""
    minimal, sent = base(ctx.spec, tool).arguments.get(name), arguments[name]
    holds = isinstance(sent, str) and isinstance(minimal, str) and minimal in sent
    if not holds or sent == minimal:
        return
    made = await live.of(tool)
    if made is None:
        return
    wrapped = {**arguments, name: sent.replace(minimal, made)}
    before, after = (
        validate_arguments(tool, document, clock=None, spec=ctx.spec)
        for document in (arguments, wrapped)
    )
    if (after.code, after.rule, after.pointer) == (before.code, before.rule, before.pointer):
        arguments[name] = wrapped[name]


def _approval(
    ctx: CheckContext, tool: str, arguments: dict[str, Any]
) -> tuple[dict[str, Any], bool]:
    """A human approval of this call, and whether it is bound to it: where none can be (no
    string target, or arguments that have no canonical form) one of other arguments, present
    so that the argument checks, which come before the gate, answer."""
    target = ctx.spec.tools[tool].target or ""
    if isinstance(arguments.get(target), str) and arguments[target]:
        try:
            return ctx.host.confirmation(tool, arguments), True
        except ValueError:  # rfc8785 cannot canonicalize an unpaired surrogate or infinity
            pass
    other = {target: f"unconfirmable-{ctx.unique('target')}"}
    return ctx.host.confirmation(tool, other), False


# sending and judging --------------------------------------------------------------------------
async def require_accepted_example(ctx: CheckContext, tool: str) -> Observation:
    """The positive control of the argument refusals of ``tool``: its minimal valid example,
    adapted to the call, must be accepted (ok; NOT_FOUND where it names a made-up target), or
    the check stops, ``error``: a refusal shows nothing of a server that refuses that too."""
    arguments, identity = adapted(ctx, base(ctx.spec, tool))
    control = await send(ctx, tool, arguments, identity)
    made_up = tool in LOOKUP_TARGETS and envelopes.code(control) == "NOT_FOUND"
    what = f"{tool} with its minimal valid example (the control)"
    ctx.require_accepted(control, what, envelopes.ok(control) or made_up)
    return control


async def send(
    ctx: CheckContext, tool: str, arguments: dict[str, Any], identity: Identity | None = None
) -> Observation:
    """One call of ``tool``, with a human approval when the tool needs one."""
    if ctx.needs_confirmation(tool):
        approval, _ = _approval(ctx, tool, arguments)
        return await ctx.call(tool, arguments, identity=identity, confirmation=approval)
    return await ctx.call(tool, arguments, identity=identity)


async def send_prepared(ctx: CheckContext, tool: str, case: Prepared) -> Observation:
    if case.approval is not None:
        return await ctx.call(
            tool, case.arguments, identity=case.identity, confirmation=case.approval
        )
    return await ctx.call(tool, case.arguments, identity=case.identity)


async def sent_broken(
    ctx: CheckContext,
    live: LiveTargets,
    tool: str,
    sent: dict[str, Any],
    subject: str | None,
    label: str,
) -> tuple[Prepared, Observation]:
    """An argument object broken at ``subject``, prepared (``prepare``) and sent."""
    case = await prepare(ctx, live, tool, sent, subject, label)
    observed = await send_prepared(ctx, tool, case)
    live.after(tool, observed)
    return case, observed


def answered_earlier(case: Prepared, observed: Observation) -> Earlier | None:
    """The earlier check the answer comes from, if it is one the case's arguments may meet."""
    return (
        case.earlier.get(envelopes.code(observed)) if envelopes.code(observed) is not None else None
    )


def order_rules(case: Prepared) -> list[str]:
    """The rules that order the argument checks before the others this case may meet."""
    return sorted({earlier.rule for earlier in case.earlier.values()})


def judge_refusal(
    ctx: CheckContext, case: Prepared, rule: str, code: str, observed: Observation, what: str
) -> None:
    """An answer to an object broken by ``rule`` (labelled ``code``): an argument refusal, or
    the answer of a check the object may meet first, which leaves ``rule`` undecided (unless
    the seed gives it) and breaks the rule that orders that check after the arguments."""
    earlier = answered_earlier(case, observed)
    if earlier is not None:
        if earlier.seed_answer:
            ctx.expect(
                rule, True, expected=f"{what}: {envelopes.code(observed)}", observed=observed
            )
        ctx.expect(
            earlier.rule,
            False,
            expected=f"{what}: the argument checks ({code}) come before the check that "
            f"answers {envelopes.code(observed)}",
            observed=observed,
        )
        return
    if rule in EXACT_CODE_RULES:
        refused = ctx.expect(
            rule, envelopes.code(observed) == code, expected=f"{what}: {code}", observed=observed
        )
    else:
        refused = ctx.expect_argument_refusal(rule, observed, code, what)
    if refused:
        for order in order_rules(case):
            ctx.expect(
                order, True, expected=f"{what}: the argument checks first", observed=observed
            )
