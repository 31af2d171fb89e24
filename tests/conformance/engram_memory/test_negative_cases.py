"""Every negative case the engram-memory checks build from a valid call breaks exactly one thing
(issue 29): the reference refuses the case, and accepts it once its one broken part is put back
from the valid call it was made from. The parts a case changes besides (an expired context moves
``iat`` back too, to keep its lifetime) stay in the restored call, so that the reference's
acceptance also shows they break nothing.

Covered here: the signed contexts (``context_cases``: HOST-003, HOST-004, HOST-005, HOST-008 and
HOST-011, HOST-010, HOST-023) on every tool, the other purposes (HOST-006), and the approvals
(``confirmation_cases``: GATE-003 to GATE-006) on every tool that may be gated. The labelled
argument examples are ``tests/spec/engram_memory/test_examples_break_one_thing.py``'s, the
argument faults and extra arguments ``test_argument_faults.py``'s, the mem contract's broken
calls ``tests/conformance/mem/test_broken_calls.py``'s, the captures refused for a host policy
or the clock ``test_refused_capture_twins.py``'s. ``NOT_BUILT`` lists the negative cases none of
them builds here, each with why.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks import confirmation_cases, context_cases
from engram_conformance.conformance.engram_memory.checks.argument_examples import base
from engram_conformance.conformance.engram_memory.host import ABSENT, Host, Identity
from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.reference_impl.engram_memory.binding import (
    ContextUnavailable,
    HostBinding,
    ProtocolRefusal,
)
from engram_conformance.reference_impl.engram_memory.gate import holds
from engram_conformance.spec.engram_memory import load

SPEC = load()
NOW_MS = 1_780_000_000_400
NOW_S = NOW_MS // 1000
SIGNER = ContextSigner(SPEC)
HOST = Host(SPEC, SIGNER, "cases")
BINDING = HostBinding(SIGNER.public_key(), spec=SPEC, clock=lambda: NOW_MS)
REQUIRED = SPEC.schema(SPEC.contract["binding_schema"])["required"]
TOOLS = list(SPEC.tools)
GIVEN_MS = confirmation_cases.whole_second(NOW_MS)

#: The negative cases of the engram-memory checks that are not built here, by the rules they
#: serve, each with why.
NOT_BUILT = {
    ("HOST-001",): "the case is a call without any context: there is no part of a context to "
    "put back; its check first has the same call answered with one",
    ("HOST-002", "HOST-010"): "a forged token carries the valid claims: what it breaks is the "
    "token (signature, alg, typ), not a claim to put back",
    ("HOST-007",): "a tool that does not exist has no valid call",
    ("HOST-015",): "a deadline passed is refused by the service, after the binding; its check "
    "then sends the same call with a deadline ahead",
    ("HOST-016", "GATE-011", "SCHEMA-011", "RET-005"): "these break two things on purpose: "
    "they judge which refusal the order of checks makes first",
    ("GATE-001", "GATE-007", "GATE-010", "GATE-012", "GATE-013"): "no approval at all, or "
    "an approval of the kinds tested here (stale: GATE-005's; another target: GATE-003's), "
    "sent on a live target whose control, the same call approved, the check makes",
    ("IDEM-005", "SCOPE-001", "LIFE-003", "PAGE-004", "SEARCH-010", "PRIV-006"): "a "
    "key used before, another scope's target, a cursor after a change, a credential judged at "
    "admission: what these break is the server's state, which their checks build by calls, "
    "each beside its control call on that state",
    ("RET-002", "RET-004", "LIFE-021"): "a host policy or the clock, judged by the service: "
    "``test_refused_capture_twins.py`` shows each refused capture the same as its accepted "
    "control but for the one broken part (and its key)",
}


def _call(tool: str) -> dict[str, Any]:
    """Valid arguments of ``tool`` (the spec's minimal example)."""
    return base(SPEC, tool).arguments


def _identity(tool: str) -> Identity:
    purpose = SPEC.tools[tool].purpose_argument
    sent = _call(tool)
    bound = sent.get("purpose_ref") or (sent.get("payload") or {}).get("purpose_ref")
    assert (purpose is None) == (bound is None)
    return Identity("tenant-1", "workspace-1", "principal-1", purpose_ref=bound or "purpose:x")


def _claims(tool: str) -> dict[str, Any]:
    """Valid claims of a call of ``tool`` now, with a holding approval when it needs one."""
    overrides: dict[str, Any] = {"iat": NOW_S, "exp": NOW_S + 60}
    if SPEC.tools[tool].confirmation == "always":
        overrides["confirmation"] = HOST.confirmation(tool, _call(tool), approved_ms=GIVEN_MS)
    return HOST.claims(_identity(tool), tool, **overrides)


def _put_back(case: Mapping[str, Any], valid: Mapping[str, Any], part: str) -> dict[str, Any]:
    restored = {**case, part: valid.get(part, ABSENT)}
    return {name: value for name, value in restored.items() if value is not ABSENT}


def _breaks_one_thing(
    case: dict[str, Any], valid: dict[str, Any], part: str, accepts: Callable[[Any], bool]
) -> None:
    assert accepts(valid), "the valid call the case is made from is accepted"
    assert not accepts(case), "the case is refused"
    assert accepts(_put_back(case, valid, part)), f"with {part} put back, it is accepted"


def _context_accepted(tool: str) -> Callable[[dict[str, Any]], bool]:
    def accepts(claims: dict[str, Any]) -> bool:
        try:
            BINDING.admit_call(tool, _call(tool), {BINDING.meta_key: SIGNER.sign(claims)})
        except ProtocolRefusal:  # -32603, or -32602 for a tool the context does not enable
            return False
        return True

    return accepts


def _context_cases() -> list[tuple[str, str, context_cases.ClaimCase]]:
    cases = []
    for tool in TOOLS:
        bound = _claims(tool)
        built = {
            **{f"HOST-003 {n}": c for n, c in context_cases.untimely(NOW_S).items()},
            **{f"HOST-004 {n}": c for n, c in context_cases.missing(REQUIRED).items()},
            **{f"HOST-005 {n}": c for n, c in context_cases.another_tool(tool, TOOLS).items()},
            **{f"HOST-011 {n}": c for n, c in context_cases.disabled(tool, TOOLS).items()},
            **{f"HOST-023 {n}": c for n, c in context_cases.malformed(bound, tool, NOW_MS).items()},
        }
        cases += [(tool, name, case) for name, case in built.items()]
    return cases


CONTEXT_CASES = _context_cases()


@pytest.mark.parametrize(
    ("tool", "name", "case"), CONTEXT_CASES, ids=[f"{t}:{n}" for t, n, _ in CONTEXT_CASES]
)
def test_each_context_case_breaks_one_claim(
    tool: str, name: str, case: context_cases.ClaimCase
) -> None:
    bound = _claims(tool)
    _breaks_one_thing(case.applied(bound), bound, case.broken, _context_accepted(tool))


@pytest.mark.parametrize("tool", [t for t in TOOLS if SPEC.tools[t].purpose_argument])
def test_each_other_purpose_differs_from_the_bound_one_alone(tool: str) -> None:
    """HOST-006: the call with another purpose_ref argument is refused; with the bound one put
    back, it is accepted."""
    bound, pointer = _identity(tool).purpose_ref, SPEC.tools[tool].purpose_argument or ""
    *parents, name = pointer.split("/")[1:]

    def accepts(purpose: str) -> bool:
        sent = copy.deepcopy(_call(tool))
        holder = sent
        for part in parents:
            holder = holder[part]
        holder[name] = purpose
        meta = {BINDING.meta_key: SIGNER.sign(_claims(tool))}
        try:
            BINDING.admit_call(tool, sent, meta)
        except ContextUnavailable:
            return False
        return True

    assert accepts(bound)
    for purpose in context_cases.other_purposes(bound):
        assert not accepts(purpose), purpose


def test_the_rules_not_built_here_exist() -> None:
    assert {rule for rules in NOT_BUILT for rule in rules} <= set(SPEC.rules)


def test_the_times_at_the_edges_are_accepted() -> None:
    for tool in TOOLS:
        for times in context_cases.timely(NOW_S).values():
            assert _context_accepted(tool)({**_claims(tool), **times})


GATED = [tool for tool in TOOLS if SPEC.tools[tool].confirmation in ("always", "host_policy")]


def _approval_holds(tool: str) -> Callable[[dict[str, Any]], bool]:
    """Whether the reference runs ``tool``'s call under a context carrying the approval."""

    def accepts(approval: dict[str, Any]) -> bool:
        claims = {**_claims(tool), "confirmation": approval}
        context = BINDING.verify(SIGNER.sign(claims))
        assert context.confirmation is not None
        return holds(SPEC, tool, _call(tool), context.confirmation, now_ms=NOW_MS)

    return accepts


def _approval_cases() -> list[tuple[str, str, confirmation_cases.ApprovalCase]]:
    cases = []
    for tool in GATED:
        sent, other = _call(tool), next(t for t in GATED if t != tool)
        target = None if SPEC.tools[tool].target == "idempotency_key" else SPEC.tools[tool].target
        built = {
            **{
                f"GATE-003 {n}": c
                for n, c in confirmation_cases.another_call(
                    tool, sent, other, "key-of-another-call-0001", target
                ).items()
            },
            **{f"GATE-004 {n}": c for n, c in confirmation_cases.out_of_time(GIVEN_MS).items()},
            **{f"GATE-005 {n}": c for n, c in confirmation_cases.stale(GIVEN_MS).items()},
            **{f"GATE-006 {n}": c for n, c in confirmation_cases.malformed(GIVEN_MS).items()},
        }
        cases += [(tool, name, case) for name, case in built.items()]
    return cases


APPROVAL_CASES = _approval_cases()


@pytest.mark.parametrize(
    ("tool", "name", "case"), APPROVAL_CASES, ids=[f"{t}:{n}" for t, n, _ in APPROVAL_CASES]
)
def test_each_approval_case_breaks_one_field(
    tool: str, name: str, case: confirmation_cases.ApprovalCase
) -> None:
    valid = HOST.confirmation(tool, _call(tool), approved_ms=GIVEN_MS)
    _breaks_one_thing(case.applied(valid), valid, case.broken, _approval_holds(tool))


def test_the_cases_cover_every_gated_tool_and_context_rule() -> None:
    assert set(GATED) == {
        "engram_memory_capture",
        "engram_memory_request_admission",
        "engram_memory_withdraw",
        "engram_memory_forget",
    }
    rules = {name.split(" ", 1)[0] for _, name, _ in CONTEXT_CASES + APPROVAL_CASES}
    assert rules == {f"HOST-00{n}" for n in (3, 4, 5)} | {"HOST-011", "HOST-023"} | {
        f"GATE-00{n}" for n in (3, 4, 5, 6)
    }
