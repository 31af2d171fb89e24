"""Checks of the argument rules (SCHEMA) and of capture's cross-references (XREF).

The cases are the spec's labelled examples (spec/examples). Each invalid example must be refused
as an argument error, recorded against its labelled rule: with its labelled code or the other
code of the seed table's row (INVALID_SCHEMA, INVALID_DIGEST), SCHEMA-035 judging which. Each
valid example must not be refused INVALID_SCHEMA or INVALID_DIGEST, recorded against the rule
that bounds the fields it sets (``_valid_rules``).

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
profile rule that orders the checks (HOST-016, GATE-011). Examples that the purpose check answers
first (HOST) and those that depend on the clock (RET) are left to their families.

What examples cannot show is built here: the 1 MiB bound of the argument object and that it is
measured on the canonical form, the order of the argument checks when several fail, and that a
refused capture writes nothing.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from engram_conformance.spec import (
    UTF16_ORDER,
    Example,
    Spec,
    canonical_json,
    instant,
    load,
    validate_arguments,
    wall_clock_ms,
)
from engram_conformance.spec.pointers import Location, to_pointer
from engram_conformance.strategies.locations import schema_at

from ..host import Identity
from ..observation import Observation
from ..targets.json_text import json_text
from ..targets.raw_channel import RawChannel
from .context import (
    ADMIT,
    ARGUMENT_ERRORS,
    CAPTURE,
    CODE_IN_ROW,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
    CheckContext,
    CheckFailed,
)
from .host import CONTEXT_UNAVAILABLE
from .registry import check

REFUSALS = ARGUMENT_ERRORS
#: Rules whose code is exact, not either code of the row: the seed names it ("un campo extra es
#: INVALID_SCHEMA", section 0), so an extra field answered INVALID_DIGEST breaks SCHEMA-001.
EXACT_CODE_RULES = frozenset({"SCHEMA-001"})
#: Rules of an object's shape (closed, no null, required, types, JSON text): they are labelled at
#: every field, so they say nothing about the bounds a valid example sits on.
SHAPE_RULES = frozenset({"SCHEMA-001", "SCHEMA-002", "SCHEMA-003", "SCHEMA-004", "SCHEMA-032"})
UNPAIRED_SURROGATES = "SCHEMA-032"
ZERO_FRACTION = "SCHEMA-033"
NFC = "SCHEMA-006"
ARGUMENT_LIMIT = "SCHEMA-009"
CANONICAL_LIMIT = "SCHEMA-037"
#: Bounds the seed gives only as maxima start at zero (an empty attestation, no family_refs).
MAXIMA_START_AT_ZERO = "SCHEMA-038"
#: A valid example whose refusal no single bound explains (it sets several at once).
SEVERAL_BOUNDS = "SCHEMA-039"
#: The profile rules that order the checks of a call: HOST-016 the argument checks before host
#: policy, lookups and search state, GATE-011 before the human approval.
CHECK_ORDER = "HOST-016"
GATE_ORDER = "GATE-011"
GATE_FAILED = "gate_failed"
KEY = "/idempotency_key"
ARGUMENT_MAX_BYTES = 1_048_576
TEXT_MAX_BYTES = 65_536
#: Characters a capture at the argument limit carries, which the raw channel writes as \\u
#: escapes (six bytes as sent for two canonical ones).
ESCAPED_CHARACTERS = 2048
#: A digest of the right length whose hex digits are upper case: not the contract's form.
UPPER_CASE_DIGEST = "sha256:" + "AB" * 32
PAST = "2001-01-01T00:00:00.000Z"
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


# examples: selection and what valid ones are about ----------------------------------------------
def _sendable(example: Example) -> bool:
    """Invalid examples judged here: not clock-dependent, not answered by an earlier check."""
    return not example.clock_dependent and example.answered_first_by is None


def _base(spec: Spec, tool: str) -> Example:
    return next(e for e in spec.examples if e.tool == tool and e.valid and e.name == "minimal")


def _pattern(pointer: str) -> str:
    """A JSON Pointer with list indices as ``*``, to compare places across examples."""
    return re.sub(r"/\d+(?=/|$)", "/*", pointer)


_ABSENT = object()


def _changes(sent: Any, base: Any, location: Location = ()) -> Iterator[tuple[Location, Any]]:
    """Where ``sent`` differs from ``base`` (by JSON type too), with the value sent there.

    A list whose count differs (or that ``base`` lacks) is one place, its items with it: the
    count is what is bounded, and new items differ field by field from nothing. An object
    ``base`` lacks is its members.
    """
    if isinstance(sent, dict) and (isinstance(base, dict) or base is _ABSENT):
        known = base if isinstance(base, dict) else {}
        for key, item in sent.items():
            yield from _changes(item, known.get(key, _ABSENT), (*location, key))
    elif isinstance(sent, list) and isinstance(base, list) and len(sent) == len(base):
        for index, (item, other) in enumerate(zip(sent, base, strict=True)):
            yield from _changes(item, other, (*location, index))
    elif type(sent) is not type(base) or sent != base:
        yield location, sent


def _places(spec: Spec, example: Example) -> list[tuple[Location, Any]]:
    """Where a valid example differs from the tool's minimal one. Examples carry idempotency
    keys of their own: the key counts only when it is the one difference."""
    places = list(_changes(example.arguments, _base(spec, example.tool).arguments))
    keyless = [(location, value) for location, value in places if to_pointer(location) != KEY]
    return keyless or places


def _any_string(value: Any, test: Callable[[str], bool]) -> bool:
    if isinstance(value, str):
        return test(value)
    if isinstance(value, dict):
        return any(_any_string(item, test) for item in value.values())
    if isinstance(value, list):
        return any(_any_string(item, test) for item in value)
    return False


def _has_zero_fraction(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_has_zero_fraction(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_zero_fraction(item) for item in value)
    return False


def _labelled(spec: Spec, tool: str) -> dict[str, set[str]]:
    """The rules the tool's invalid examples label, by place (list indices as ``*``)."""
    labelled: dict[str, set[str]] = {}
    for other in spec.examples:
        if other.tool == tool and not other.valid:
            labelled.setdefault(_pattern(other.pointer or ""), set()).add(other.rule or "")
    return labelled


def _lowest(schema: dict[str, Any]) -> int:
    return max(schema.get("x-minBytes", 0), schema.get("minLength", 0), schema.get("minItems", 0))


def _ordinary_text(value: Any, schema: dict[str, Any]) -> bool:
    """Whether a string is one no bound can trip on: ASCII, strictly inside its byte bounds, of
    a field with no enumeration, pattern or calendar (those values are what an example is
    about)."""
    if not isinstance(value, str) or {"enum", "const", "pattern", "x-instant"} & set(schema):
        return False
    size = len(value.encode("utf-8"))
    highest = schema.get("x-maxBytes")
    return value.isascii() and _lowest(schema) < size and (highest is None or size < highest)


def _order_in_dispute(items: list[Any]) -> bool:
    """Whether a list sorted by UTF-16 code units is unsorted by another order a server may use
    (code points, or letters whatever their case)."""
    texts = [item for item in items if isinstance(item, str)]
    return texts != sorted(texts) or texts != sorted(texts, key=str.casefold)


def _list_rules(spec: Spec, schema: dict[str, Any], items: list[Any]) -> set[str]:
    """The rules a valid list breaks if refused: those of the item bounds it sits on, and for a
    sorted list an order other orders dispute, the UTF-16 order's."""
    named = {**spec.contract["keyword_rules"], **schema.get("x-rules", {})}
    rules = {
        named[keyword]
        for keyword in ("minItems", "maxItems")
        if schema.get(keyword) == len(items) and keyword in named
    }
    if schema.get("x-sortedUnique") and _order_in_dispute(items) and UTF16_ORDER in named:
        rules.add(named[UTF16_ORDER])
    return rules


def _place_rules(
    spec: Spec, schema: dict[str, Any], labelled: dict[str, set[str]], place: Location, value: Any
) -> set[str]:
    """The rules a refusal breaks for the value a valid example sets at ``place`` (none when
    the value is ordinary): an empty value of a field bounded only above is SCHEMA-038's; a
    list is judged by its count and order; any other value by the rules the invalid examples
    label at that place, but for those labelled at every place of their kind (shape, NFC)."""
    bounds = schema_at(schema, place)
    bounded_above = "x-maxBytes" in bounds or "maxItems" in bounds
    if value in ("", []) and bounded_above and not _lowest(bounds):
        return {MAXIMA_START_AT_ZERO}
    if isinstance(value, list):
        return _list_rules(spec, bounds, value)
    if _ordinary_text(value, bounds):
        return set()
    rules = labelled.get(_pattern(to_pointer(place)), set()) - SHAPE_RULES - {NFC}
    return {rule for rule in rules if spec.rules[rule].testable}


def _valid_rules(spec: Spec, example: Example) -> set[str]:
    """The rules a refusal of a valid example breaks.

    An example sending a number with a zero fraction is about SCHEMA-033, one sending free text
    that is not NFC about SCHEMA-006 (free text is taken as sent), the minimal one about the
    shape rules. Any other is about the rules common to every place where it differs from the
    minimal one (``_place_rules``; places with ordinary values say nothing): a server refusing
    it broke each of them. An example whose places share none sets several bounds at once, and
    which one a server got wrong cannot be told: SCHEMA-039.
    """
    if _has_zero_fraction(example.arguments):
        return {ZERO_FRACTION}
    if _any_string(example.arguments, lambda s: not unicodedata.is_normalized("NFC", s)):
        return {NFC}
    if example.name == "minimal":
        return set(SHAPE_RULES - {UNPAIRED_SURROGATES})
    schema = spec.input_validator(example.tool).schema
    labelled = _labelled(spec, example.tool)
    said = [
        rules
        for place, value in _places(spec, example)
        if (rules := _place_rules(spec, schema, labelled, place, value))
    ]
    common = set.intersection(*said) if said else set()
    return common or {SEVERAL_BOUNDS}


def _in_family(rule: str, family: str) -> bool:
    return rule.startswith(f"{family}-")


def _cases(spec: Spec, tool: str, family: str) -> Iterator[tuple[Example, tuple[str, ...]]]:
    """The examples of ``tool`` that decide rules of ``family``, each with those rules."""
    for example in spec.examples:
        if example.tool != tool:
            continue
        if example.valid:
            rules = sorted(r for r in _valid_rules(spec, example) if _in_family(r, family))
        else:
            labelled = example.rule or ""
            rules = [labelled] if _sendable(example) and _in_family(labelled, family) else []
        if rules:
            yield example, tuple(rules)


def _example_rules(tool: str, family: str) -> tuple[str, ...]:
    """What the examples check of ``tool`` decides (from the packaged spec): the rules of
    ``family`` its examples decide, then the code of the row, then the order of checks."""
    spec = load()
    cases = list(_cases(spec, tool, family))
    decided = sorted({rule for _, rules in cases for rule in rules})
    row = [
        example.code
        for example, rules in cases
        if not example.valid and rules[0] not in EXACT_CODE_RULES
    ]
    extra = [CODE_IN_ROW] if set(row) & set(ARGUMENT_ERRORS) else []
    extra.append(CHECK_ORDER)
    if spec.tools[tool].confirmation != "never":
        extra.append(GATE_ORDER)
    return (*decided, *(rule for rule in extra if rule not in decided))


# adapting a case to the call ------------------------------------------------------------------
def _adapted(ctx: CheckContext, example: Example) -> tuple[dict[str, Any], Identity]:
    return adapt(ctx, example.tool, example.arguments, _subject(ctx.spec, example), example.name)


def _subject(spec: Spec, example: Example) -> str | None:
    """The field an example is about: an invalid one's pointer, or the one place where a valid
    one differs from the tool's minimal example."""
    if not example.valid:
        return example.pointer
    places = _places(spec, example)
    return to_pointer(places[0][0]) if len(places) == 1 else None


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
        if changes and observed.ok and self._made.get(tool) is not None:
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
        if (holder or {}).get(field, _ABSENT) != identity.purpose_ref:
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
    minimal, sent = _base(ctx.spec, tool).arguments.get(name), arguments[name]
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
    return case.earlier.get(observed.code) if observed.code is not None else None


def order_rules(case: Prepared) -> list[str]:
    """The rules that order the argument checks before the others this case may meet."""
    return sorted({earlier.rule for earlier in case.earlier.values()})


def _judge_refusal(
    ctx: CheckContext, case: Prepared, rule: str, code: str, observed: Observation, what: str
) -> None:
    """An answer to an object broken by ``rule`` (labelled ``code``): an argument refusal, or
    the answer of a check the object may meet first, which leaves ``rule`` undecided (unless
    the seed gives it) and breaks the rule that orders that check after the arguments."""
    earlier = answered_earlier(case, observed)
    if earlier is not None:
        if earlier.seed_answer:
            ctx.expect(rule, True, expected=f"{what}: {observed.code}", observed=observed)
        ctx.expect(
            earlier.rule,
            False,
            expected=f"{what}: the argument checks ({code}) come before the check that "
            f"answers {observed.code}",
            observed=observed,
        )
        return
    if rule in EXACT_CODE_RULES:
        refused = ctx.expect(
            rule, observed.code == code, expected=f"{what}: {code}", observed=observed
        )
    else:
        refused = ctx.expect_argument_refusal(rule, observed, code, what)
    if refused:
        for order in order_rules(case):
            ctx.expect(
                order, True, expected=f"{what}: the argument checks first", observed=observed
            )


async def _judge_examples(ctx: CheckContext, tool: str, family: str) -> None:
    """Send ``tool``'s examples that decide rules of ``family`` and compare the answers."""
    live = LiveTargets(ctx)
    for example, rules in _cases(ctx.spec, tool, family):
        if example.valid:
            arguments, identity = _adapted(ctx, example)
            observed = await send(ctx, tool, arguments, identity)
            for rule in rules:
                ctx.expect(
                    rule,
                    observed.code not in REFUSALS,
                    expected=f"no {' or '.join(REFUSALS)} for the valid example {example.name!r}"
                    f" of {tool}: {example.description}",
                    observed=observed,
                )
            continue
        case, observed = await sent_broken(
            ctx, live, tool, example.arguments, example.pointer, example.name
        )
        what = (
            f"the example {example.name!r} of {tool}, which breaks "
            f"{example.pointer or 'the argument object'} ({example.description})"
        )
        _judge_refusal(ctx, case, rules[0], example.code or "", observed, what)


@check(rules=_example_rules(SEARCH, "SCHEMA"), tools=(SEARCH,))
async def search_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, SEARCH, "SCHEMA")


@check(rules=_example_rules(GET, "SCHEMA"), tools=(GET,))
async def get_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, GET, "SCHEMA")


@check(rules=_example_rules(CAPTURE, "SCHEMA"), tools=(CAPTURE,))
async def capture_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, CAPTURE, "SCHEMA")


@check(rules=_example_rules(ADMIT, "SCHEMA"), tools=(ADMIT,))
async def request_admission_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, ADMIT, "SCHEMA")


@check(rules=_example_rules(WITHDRAW, "SCHEMA"), tools=(WITHDRAW,))
async def withdraw_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, WITHDRAW, "SCHEMA")


@check(rules=_example_rules(FORGET, "SCHEMA"), tools=(FORGET,))
async def forget_answers_the_labelled_argument_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, FORGET, "SCHEMA")


@check(rules=_example_rules(CAPTURE, "XREF"), tools=(CAPTURE,))
async def capture_answers_the_labelled_cross_reference_examples(ctx: CheckContext) -> None:
    await _judge_examples(ctx, CAPTURE, "XREF")


# built cases ------------------------------------------------------------------------------------
def _with_size(ctx: CheckContext, size: int, escaped: int = 0) -> dict[str, Any]:
    """A valid capture whose canonical (RFC 8785) form is exactly ``size`` bytes: the primary
    component and filler components of text, each within the 65,536-byte text bound; the
    first filler starts with ``escaped`` times 'é' (two bytes each), the rest is ASCII."""
    arguments = ctx.capture_arguments(f"large argument {ctx.unique('large')}")
    payload = arguments["payload"]
    cited = payload["components"][0]["citation_ids"]
    fillers = [
        {
            "component_id": f"component:filler-{n}",
            "kind": "context",
            "text": "x",
            "citation_ids": cited,
        }
        for n in range(size // TEXT_MAX_BYTES + 1)
    ]
    fillers[0]["text"] = "é" * escaped + "x"
    payload["components"] += fillers
    missing = size - len(canonical_json(arguments))
    for filler in fillers:
        room = TEXT_MAX_BYTES - len(filler["text"].encode("utf-8"))
        grown = min(room, missing)
        filler["text"] += "x" * grown
        missing -= grown
    ctx.require(missing == 0, f"a capture of {size} canonical bytes could not be built", missing)
    return arguments


@check(rules=(ARGUMENT_LIMIT, CODE_IN_ROW), tools=(CAPTURE,))
async def argument_object_is_bounded_by_one_mebibyte(ctx: CheckContext) -> None:
    """A capture one byte over 1,048,576 canonical bytes is refused as an argument error (its
    canonical form is the shortest serialization a writer may choose, so it is over the bound
    in any). Only capture can be that large and otherwise valid."""
    over = await send(ctx, CAPTURE, _with_size(ctx, ARGUMENT_MAX_BYTES + 1))
    what = f"a capture of {ARGUMENT_MAX_BYTES + 1} canonical bytes"
    ctx.expect_argument_refusal(ARGUMENT_LIMIT, over, "INVALID_SCHEMA", what)


@check(rules=(CANONICAL_LIMIT,), tools=(CAPTURE,))
async def argument_bound_is_measured_on_the_canonical_form(ctx: CheckContext) -> None:
    """A capture of exactly 1,048,576 canonical bytes passes the argument checks, also when the
    JSON text that carries it is longer: sent over the raw channel, which writes non-ASCII as
    \\u escapes, it is longer than the bound as sent (only where the target has one that
    writes text; a target in process gets the objects)."""
    at_limit = await send(ctx, CAPTURE, _with_size(ctx, ARGUMENT_MAX_BYTES))
    ctx.expect(
        CANONICAL_LIMIT,
        at_limit.code not in REFUSALS,
        expected=f"a capture of exactly {ARGUMENT_MAX_BYTES} canonical bytes is not refused",
        observed=at_limit,
    )
    channel = await ctx.session.connection.raw_for(ctx.host.claims(ctx.identity, CAPTURE))
    if not isinstance(channel, RawChannel):
        return
    escaped = _with_size(ctx, ARGUMENT_MAX_BYTES, ESCAPED_CHARACTERS)
    with ctx.session.over(channel):  # a raw channel calls tools as a client does
        longer = await send(ctx, CAPTURE, escaped)
    ctx.expect(
        CANONICAL_LIMIT,
        longer.code not in REFUSALS,
        expected=f"a capture of exactly {ARGUMENT_MAX_BYTES} canonical bytes, sent as "
        f"{len(json_text(escaped))} bytes of JSON text ({ESCAPED_CHARACTERS} characters written "
        "as \\u escapes), is not refused: the bound is measured on the canonical form",
        observed=longer,
    )


Fault = Callable[[dict[str, Any]], None]


def _breach(arguments: dict[str, Any], *faults: Fault) -> dict[str, Any]:
    """``arguments`` with ``faults`` applied."""
    for fault in faults:
        fault(arguments)
    return arguments


def _told(faults: tuple[Fault, ...]) -> str:
    return " and ".join(fault.__doc__ or fault.__name__ for fault in faults)


def _bad_content_digest(arguments: dict[str, Any]) -> None:
    """a content_digest not of the digest form (in the payload, sent before the evidence)"""
    arguments["payload"]["citations"][0]["content_digest"] = UPPER_CASE_DIGEST


def _bad_evidence_digest(arguments: dict[str, Any]) -> None:
    """an evidence_digest not of the digest form"""
    arguments["evidence"]["evidence_digest"] = UPPER_CASE_DIGEST


def _long_attestation(arguments: dict[str, Any]) -> None:
    """an attestation of 4,097 bytes (in the evidence, sent last)"""
    arguments["evidence"]["attestation"] = "a" * 4097


def _dangling_evidence_citation(arguments: dict[str, Any]) -> None:
    """an evidence citation that resolves to no citation"""
    arguments["evidence"]["citation_ids"] = ["citation:nowhere"]


def _expired(arguments: dict[str, Any]) -> None:
    """a retention that expired in 2001"""
    arguments["payload"]["retention"] = {"derivative_rule": "make-ineligible", "expires_at": PAST}


@check(rules=("SCHEMA-011",), tools=(CAPTURE,))
async def argument_checks_answer_in_their_order(ctx: CheckContext) -> None:
    """Captures that break several argument checks: schema before cross-references before digest
    forms, whatever the order of the fields as sent, and digests before the clock."""
    cases: list[tuple[tuple[Fault, ...], str, str]] = [
        ((_bad_content_digest, _long_attestation), "INVALID_SCHEMA", "schema before digests"),
        (
            (_bad_content_digest, _dangling_evidence_citation),
            "INVALID_SCHEMA",
            "cross-references before digests",
        ),
        ((_bad_evidence_digest, _expired), "INVALID_DIGEST", "digest forms before the clock"),
    ]
    for faults, code, why in cases:
        observed = await send(ctx, CAPTURE, _breach(ctx.capture_arguments(), *faults))
        ctx.expect(
            "SCHEMA-011",
            observed.code == code,
            expected=f"{code} for a capture with {_told(faults)}: {why}",
            observed=observed,
        )


@check(rules=("XREF-010",), tools=(CAPTURE, SEARCH))
async def refused_capture_writes_nothing(ctx: CheckContext) -> None:
    """A capture refused for a cross-reference, a digest form or the clock leaves its key unused
    (the same key then commits a first capture) and its content unfound. Which code refuses it
    is judged by the rules of each failure, not here."""
    marker = ctx.unique("refused")
    for fault in (_dangling_evidence_citation, _bad_evidence_digest, _expired):
        arguments = _breach(ctx.capture_arguments(f"refused capture {marker}"), fault)
        refused = await send(ctx, CAPTURE, arguments)
        ctx.require(
            refused.code in REFUSALS, f"a capture with {_told((fault,))} is refused", refused
        )
        clean = ctx.capture_arguments(key=arguments["idempotency_key"])
        retried = await send(ctx, CAPTURE, clean)
        ctx.expect(
            "XREF-010",
            retried.value.get("status") == "committed_pending",
            expected=f"after a refused capture with {_told((fault,))}, its idempotency key is "
            "unused: a clean capture with it is committed_pending",
            observed=retried,
        )
    found = await ctx.found(marker)
    ctx.expect(
        "XREF-010",
        not found,
        expected="no search finds the content of the refused captures",
        observed=found,
    )
