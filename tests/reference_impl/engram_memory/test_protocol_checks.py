"""The host binding through MCP (in-process client, legacy handshake): DESIGN.md's order of checks,
steps 1 to 5, and tools/list (HOST-001 to HOST-011, GATE-001, HOST-016).

A fake service stands behind the server: a call that passes the protocol checks reaches it, and
it records the context the binding built.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.binding import HostBinding
from engram_conformance.reference_impl.engram_memory.context import (
    UNUSABLE_CONFIRMATION,
    InvocationContext,
)
from engram_conformance.reference_impl.engram_memory.server import build_server
from engram_conformance.spec.engram_memory import Spec, instant, operation_digest
from engram_conformance.spec.engram_memory.tool_names import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)
from mcp import Client
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from ..host import ABSENT, META_KEY, PURPOSE, TOKEN_TYPE, Host
from .service_fixtures import FakeClock

pytestmark = pytest.mark.anyio

ALL_TOOLS = [SEARCH, GET, CAPTURE, ADMIT, WITHDRAW, FORGET]
CONTEXT_UNAVAILABLE = -32603
UNKNOWN_TOOL = -32602
REQUIRED_CLAIMS = [
    "tenant",
    "workspace",
    "principal",
    "agent_id",
    "session",
    "purpose_ref",
    "audit_id",
    "tool",
    "iat",
    "exp",
]
SEARCH_ARGUMENTS = {"query": "ranking", "purpose_ref": PURPOSE}
RECORD_ID = "mem_" + "a" * 52
WITHDRAW_ARGUMENTS = {
    "candidate_id": "cand_x",
    "idempotency_key": "withdraw-key-000001",
    "reason_ref": "reason:obsolete",
}


class FakeService:
    """Answers every call with an empty success and remembers the context it was given."""

    def __init__(self) -> None:
        self.contexts: list[InvocationContext] = []
        self.failure: Exception | None = None

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        self.contexts.append(context)
        if self.failure is not None:
            raise self.failure
        value = {"tool": tool, "arguments": arguments}
        output = {"schema_version": 1, "value": value}
        return {"ok": True, "output": output, "auditId": context.audit_id, "redactionClass": "high"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def host(clock: FakeClock) -> Host:
    return Host(clock=clock)


@pytest.fixture
def service() -> FakeService:
    return FakeService()


@pytest.fixture
def server(host: Host, service: FakeService, clock: FakeClock) -> Server[Any]:
    return build_server(service, HostBinding(host.signer.public_key(), clock=clock))


async def answer(
    server: Server[Any], tool: str, arguments: Any, meta: dict[str, Any] | None
) -> CallToolResult | MCPError:
    """The result of one call, or the JSON-RPC error answering it."""
    async with Client(server, mode="legacy") as client:
        try:
            return await client.call_tool(tool, arguments, meta=meta)
        except MCPError as error:  # caught here: out of the client it is an exception group
            return error


async def call(
    server: Server[Any], tool: str, arguments: Any, meta: dict[str, Any] | None
) -> CallToolResult:
    result = await answer(server, tool, arguments, meta)
    assert isinstance(result, CallToolResult), result
    return result


async def refusal(
    server: Server[Any], spec: Spec, tool: str, arguments: Any, meta: dict[str, Any] | None
) -> int:
    """The JSON-RPC error code answering the call, checked to carry the spec's message."""
    error = await answer(server, tool, arguments, meta)
    assert isinstance(error, MCPError), error
    assert error.message == spec.protocol_errors[error.code].message
    return error.code


async def listed(server: Server[Any], meta: dict[str, Any] | None) -> list[str] | MCPError:
    """The names tools/list answers, or its JSON-RPC error."""
    async with Client(server, mode="legacy") as client:
        try:
            return [tool.name for tool in (await client.list_tools(meta=meta)).tools]
        except MCPError as error:
            return error


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def compact(header: dict[str, Any], claims: dict[str, Any], signature: bytes = b"") -> str:
    head = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
    return head + "." + b64(signature)


# Step 2: the context is present, validly signed, unexpired and names this tool --------------


def unsigned(host: Host) -> dict[str, Any]:
    return {META_KEY: compact({"alg": "none", "typ": TOKEN_TYPE}, host.claims(SEARCH))}


def hmac_with_public_key(host: Host) -> dict[str, Any]:
    """The algorithm-confusion attack: HS256 keyed with the host's public PEM."""
    header = {"alg": "HS256", "typ": TOKEN_TYPE}
    unsigned_token = compact(header, host.claims(SEARCH)).rstrip(".")
    mac = hmac.new(host.signer.public_pem(), unsigned_token.encode(), hashlib.sha256).digest()
    return {META_KEY: unsigned_token + "." + b64(mac)}


def another_key(host: Host) -> dict[str, Any]:
    return {META_KEY: Host(clock=host.clock).token(SEARCH)}


def tampered(host: Host) -> dict[str, Any]:
    head, _, signature = host.token(SEARCH).split(".")
    forged = b64(json.dumps(host.claims(SEARCH, tenant="tenant-b")).encode())
    return {META_KEY: f"{head}.{forged}.{signature}"}


def headers(**header: Any) -> Any:
    return lambda host: {META_KEY: host.sign(host.claims(SEARCH), headers=header)}


def signed_payload(payload: bytes) -> Any:
    """A validly signed JWS whose payload is not a claims object."""

    def build(host: Host) -> dict[str, Any]:
        return {META_KEY: host.signer.sign_payload(payload)}

    return build


UNTRUSTED_CONTEXTS = {
    "no _meta": lambda host: None,
    "no invocation key": lambda host: {"other": host.token(SEARCH)},
    "null context": lambda host: {META_KEY: None},
    "not a string": lambda host: {META_KEY: 42},
    "JWS JSON serialization": lambda host: {META_KEY: {"payload": "e30", "signature": "x"}},
    "garbage": lambda host: {META_KEY: "garbage"},
    "three garbage segments": lambda host: {META_KEY: "a.b.c"},
    "empty string": lambda host: {META_KEY: ""},
    "non-ASCII": lambda host: {META_KEY: "é.é.é"},
    "unsigned (alg none)": unsigned,
    "HS256 keyed with the public key": hmac_with_public_key,
    "signed by another key": another_key,
    "claims changed after signing": tampered,
    "typ JWT": headers(typ="JWT"),
    "typ missing": headers(typ=None),
    "payload not JSON": signed_payload(b"not json"),
    "payload a JSON array": signed_payload(b"[1, 2]"),
}


@pytest.mark.parametrize("build", UNTRUSTED_CONTEXTS.values(), ids=UNTRUSTED_CONTEXTS.keys())
async def test_an_untrusted_context_is_refused_with_32603(
    server: Server[Any], spec: Spec, host: Host, service: FakeService, build: Any
) -> None:
    code = await refusal(server, spec, SEARCH, SEARCH_ARGUMENTS, build(host))
    assert code == CONTEXT_UNAVAILABLE
    assert service.contexts == []


@pytest.mark.parametrize("claim", REQUIRED_CLAIMS)
async def test_a_context_missing_a_required_claim_is_refused(
    server: Server[Any], spec: Spec, host: Host, claim: str
) -> None:
    meta = host.meta(SEARCH, **{claim: ABSENT})
    assert await refusal(server, spec, SEARCH, SEARCH_ARGUMENTS, meta) == CONTEXT_UNAVAILABLE


BAD_CLAIMS = {
    "iat a string": {"iat": "now"},
    "exp a float with a fraction": {"exp": 1.5},
    "empty tenant": {"tenant": ""},
    "tenant null": {"tenant": None},
    "tool not a memory tool": {"tool": "other_tool"},
    "tools not a list": {"tools": SEARCH},
    "deadline not an Instant": {"deadline": "2026-12-01"},
    "deadline not a calendar instant": {"deadline": "2026-02-30T00:00:00.000Z"},
}


@pytest.mark.parametrize("claims", BAD_CLAIMS.values(), ids=BAD_CLAIMS.keys())
async def test_claims_that_break_the_binding_schema_are_refused(
    server: Server[Any], spec: Spec, host: Host, claims: dict[str, Any]
) -> None:
    meta = host.meta(SEARCH, **claims)
    assert await refusal(server, spec, SEARCH, SEARCH_ARGUMENTS, meta) == CONTEXT_UNAVAILABLE


LIFETIMES = {
    # name: (iat offset from now in s, exp - iat in s, accepted)
    "expired a second ago": (-61, 60, False),
    "expiring right now": (-60, 60, False),
    "expiring in a second": (-59, 60, True),
    "lifetime 300 s": (0, 300, True),
    "lifetime 301 s": (0, 301, False),
    "issued 5 s ahead": (5, 60, True),
    "issued 6 s ahead": (6, 60, False),
}


@pytest.mark.parametrize(
    ("issued_in_s", "lifetime_s", "accepted"), LIFETIMES.values(), ids=LIFETIMES.keys()
)
async def test_context_times(
    server: Server[Any],
    spec: Spec,
    host: Host,
    clock: FakeClock,
    issued_in_s: int,
    lifetime_s: int,
    accepted: bool,
) -> None:
    iat = clock() // 1000 + issued_in_s
    meta = host.meta(SEARCH, iat=iat, exp=iat + lifetime_s)
    if accepted:
        assert not (await call(server, SEARCH, SEARCH_ARGUMENTS, meta)).is_error
    else:
        assert await refusal(server, spec, SEARCH, SEARCH_ARGUMENTS, meta) == CONTEXT_UNAVAILABLE


async def test_a_context_for_another_tool_is_refused(
    server: Server[Any], spec: Spec, host: Host
) -> None:
    meta = host.meta(GET)
    assert await refusal(server, spec, SEARCH, SEARCH_ARGUMENTS, meta) == CONTEXT_UNAVAILABLE


async def test_optional_claims_that_are_null_count_as_absent(
    server: Server[Any], host: Host, service: FakeService
) -> None:
    nulls = {"deadline": None, "cancellation_ref": None, "tools": None, "confirmation": None}
    result = await call(server, SEARCH, SEARCH_ARGUMENTS, host.meta(SEARCH, **nulls))
    assert not result.is_error
    [context] = service.contexts
    assert (context.deadline_ms, context.cancellation_ref) == (None, None)
    assert (context.tools, context.confirmation) == (None, None)


async def test_the_service_gets_the_bound_claims_in_epoch_milliseconds(
    server: Server[Any], host: Host, service: FakeService, clock: FakeClock
) -> None:
    approval = host.confirmation(WITHDRAW, WITHDRAW_ARGUMENTS, ttl_ms=90_000)
    meta = host.meta(
        WITHDRAW,
        tenant="tenant-z",
        audit_id="audit-xyz",
        deadline=instant(clock() + 2_000),
        cancellation_ref="cancel-1",
        tools=[WITHDRAW, SEARCH],
        confirmation=approval,
    )
    result = await call(server, WITHDRAW, WITHDRAW_ARGUMENTS, meta)
    assert result.structured_content is not None
    assert result.structured_content["auditId"] == "audit-xyz"
    [context] = service.contexts
    assert (context.tenant, context.audit_id, context.tool) == ("tenant-z", "audit-xyz", WITHDRAW)
    assert context.deadline_ms == clock() + 2_000
    assert context.cancellation_ref == "cancel-1"
    assert context.tools == frozenset({WITHDRAW, SEARCH})
    assert context.confirmation is not None
    assert context.confirmation.target == "cand_x"
    assert context.confirmation.operation_digest == operation_digest(WITHDRAW, WITHDRAW_ARGUMENTS)
    assert context.confirmation.approved_at_ms == clock()
    assert context.confirmation.expires_at_ms == clock() + 90_000


# Steps 1 and 3: the tool exists and is enabled --------------------------------------------


async def test_an_unknown_tool_is_32602_before_any_context_check(
    server: Server[Any], spec: Spec
) -> None:
    assert await refusal(server, spec, "engram_memory_rewind", {}, None) == UNKNOWN_TOOL


@pytest.mark.parametrize("enabled", [[], [GET], [GET, CAPTURE]])
async def test_a_tool_the_context_does_not_enable_is_32602(
    server: Server[Any], spec: Spec, host: Host, enabled: list[str]
) -> None:
    meta = host.meta(SEARCH, tools=enabled)
    assert await refusal(server, spec, SEARCH, SEARCH_ARGUMENTS, meta) == UNKNOWN_TOOL


async def test_an_enabled_tool_is_served(server: Server[Any], host: Host) -> None:
    meta = host.meta(SEARCH, tools=[SEARCH])
    assert not (await call(server, SEARCH, SEARCH_ARGUMENTS, meta)).is_error


# Step 4: the purpose argument equals the bound purpose --------------------------------------

CAPTURE_ARGUMENTS = {"idempotency_key": "capture-key-000001", "payload": {"purpose_ref": PURPOSE}}
PURPOSE_CALLS = {
    SEARCH: (SEARCH_ARGUMENTS, ("purpose_ref",)),
    GET: ({"record_id": RECORD_ID, "purpose_ref": PURPOSE}, ("purpose_ref",)),
    CAPTURE: (CAPTURE_ARGUMENTS, ("payload", "purpose_ref")),
}


def with_value(arguments: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    copied = json.loads(json.dumps(arguments))
    target = copied
    for name in path[:-1]:
        target = target[name]
    target[path[-1]] = value
    return copied


@pytest.mark.parametrize("tool", PURPOSE_CALLS)
async def test_a_purpose_other_than_the_bound_one_is_32603(
    server: Server[Any], spec: Spec, host: Host, tool: str
) -> None:
    arguments, path = PURPOSE_CALLS[tool]
    other = with_value(arguments, path, "purpose:something-else")
    assert await refusal(server, spec, tool, other, host.meta(tool)) == CONTEXT_UNAVAILABLE
    assert not (await call(server, tool, arguments, host.meta(tool))).is_error


@pytest.mark.parametrize("tool", PURPOSE_CALLS)
async def test_a_purpose_that_is_not_a_string_is_left_to_the_schema(
    server: Server[Any], host: Host, service: FakeService, tool: str
) -> None:
    arguments, path = PURPOSE_CALLS[tool]
    await call(server, tool, with_value(arguments, path, 7), host.meta(tool))
    assert len(service.contexts) == 1


async def test_the_purpose_check_comes_after_the_enabled_check(
    server: Server[Any], spec: Spec, host: Host
) -> None:
    other = {"query": "q", "purpose_ref": "purpose:other"}
    meta = host.meta(SEARCH, tools=[GET])
    assert await refusal(server, spec, SEARCH, other, meta) == UNKNOWN_TOOL


async def test_the_tool_claim_is_checked_before_the_enabled_check(
    server: Server[Any], spec: Spec, host: Host
) -> None:
    meta = host.meta(GET, tools=[GET])
    assert await refusal(server, spec, SEARCH, SEARCH_ARGUMENTS, meta) == CONTEXT_UNAVAILABLE


# Step 5: withdraw and forget carry a confirmation -------------------------------------------

FORGET_ARGUMENTS = {
    "record_id": RECORD_ID,
    "idempotency_key": "forget-key-0000001",
    "reason_ref": "reason:obsolete",
}
GATED = {WITHDRAW: WITHDRAW_ARGUMENTS, FORGET: FORGET_ARGUMENTS}


@pytest.mark.parametrize("tool", GATED)
async def test_withdraw_and_forget_without_confirmation_are_32603(
    server: Server[Any], spec: Spec, host: Host, service: FakeService, tool: str
) -> None:
    arguments = GATED[tool]
    for meta in (host.meta(tool), host.meta(tool, confirmation=None)):
        assert await refusal(server, spec, tool, arguments, meta) == CONTEXT_UNAVAILABLE
    assert service.contexts == []


@pytest.mark.parametrize("tool", GATED)
async def test_a_confirmation_that_does_not_hold_still_reaches_the_service(
    server: Server[Any], host: Host, service: FakeService, tool: str
) -> None:
    """Whether it holds is the service's check (gate_failed), not a protocol error."""
    approval = host.confirmation(tool, GATED[tool], target="another-target")
    await call(server, tool, GATED[tool], host.meta(tool, confirmation=approval))
    assert len(service.contexts) == 1


MALFORMED_CONFIRMATIONS = {
    "missing its target": lambda approval: {k: v for k, v in approval.items() if k != "target"},
    "approved_at not an Instant": lambda approval: {**approval, "approved_at": "2026-12-01"},
}


@pytest.mark.parametrize("tool", GATED)
@pytest.mark.parametrize(
    "breaks", MALFORMED_CONFIRMATIONS.values(), ids=MALFORMED_CONFIRMATIONS.keys()
)
async def test_a_malformed_confirmation_reaches_the_service_holding_for_no_call(
    server: Server[Any], host: Host, service: FakeService, tool: str, breaks: Any
) -> None:
    """GATE-006: a confirmation present but malformed is the service's gate_failed, not -32603."""
    approval = breaks(host.confirmation(tool, GATED[tool]))
    await call(server, tool, GATED[tool], host.meta(tool, confirmation=approval))
    assert [context.confirmation for context in service.contexts] == [UNUSABLE_CONFIRMATION]


@pytest.mark.parametrize("tool", [CAPTURE, ADMIT])
async def test_capture_and_admission_need_no_confirmation_at_the_protocol_step(
    server: Server[Any], host: Host, service: FakeService, tool: str
) -> None:
    arguments = CAPTURE_ARGUMENTS if tool == CAPTURE else {"candidate_id": "c"}
    await call(server, tool, arguments, host.meta(tool))
    assert len(service.contexts) == 1


# tools/list -----------------------------------------------------------------------------


async def test_tools_list_without_context_lists_the_six_tools(server: Server[Any]) -> None:
    assert await listed(server, None) == ALL_TOOLS
    assert await listed(server, {"unrelated": 1}) == ALL_TOOLS


@pytest.mark.parametrize(
    "enabled", [[FORGET, SEARCH], [GET], [], None], ids=["two", "one", "none", "null"]
)
async def test_tools_list_with_a_context_lists_what_it_enables(
    server: Server[Any], host: Host, enabled: list[str] | None
) -> None:
    names = await listed(server, host.meta(CAPTURE, tools=enabled))
    assert names == (ALL_TOOLS if enabled is None else [t for t in ALL_TOOLS if t in enabled])


@pytest.mark.parametrize("tool_claim", ["tools/list", "", "engram_memory_purge", 7, ABSENT])
async def test_tools_list_does_not_check_the_tool_claim(
    server: Server[Any], host: Host, tool_claim: Any
) -> None:
    """DESIGN.md's ruling: on tools/list the tool claim is not checked at all; the tools claim
    still filters the list, and the same context on a call is refused."""
    assert await listed(server, host.meta(CAPTURE, tool=tool_claim)) == ALL_TOOLS
    assert await listed(server, host.meta(CAPTURE, tool=tool_claim, tools=[GET])) == [GET]


@pytest.mark.parametrize("tool_claim", ["tools/list", "", 7, ABSENT])
async def test_a_call_whose_context_names_no_tool_is_refused(
    server: Server[Any], spec: Spec, host: Host, tool_claim: Any
) -> None:
    meta = host.meta(SEARCH, tool=tool_claim)
    assert await refusal(server, spec, SEARCH, SEARCH_ARGUMENTS, meta) == CONTEXT_UNAVAILABLE


@pytest.mark.parametrize(
    "meta",
    [
        lambda host: {META_KEY: "garbage"},
        another_key,
        lambda host: host.meta(SEARCH, iat=0, exp=60),
        lambda host: host.meta(SEARCH, tenant=ABSENT),
    ],
    ids=["garbage", "another key", "expired", "missing claim"],
)
async def test_tools_list_with_a_context_that_does_not_verify_is_32603(
    server: Server[Any], spec: Spec, host: Host, meta: Any
) -> None:
    error = await listed(server, meta(host))
    assert isinstance(error, MCPError)
    assert (error.code, error.message) == (
        CONTEXT_UNAVAILABLE,
        spec.protocol_errors[-32603].message,
    )


# The envelope on the wire ------------------------------------------------------------------


async def test_the_envelope_travels_as_structured_content_and_identical_json_text(
    server: Server[Any], host: Host
) -> None:
    result = await call(server, SEARCH, SEARCH_ARGUMENTS, host.meta(SEARCH))
    [text] = result.content
    assert text.type == "text"
    assert json.loads(text.text) == result.structured_content
    assert result.is_error is False


@pytest.mark.parametrize(
    ("tool", "code"), [(SEARCH, "STORE_UNAVAILABLE"), (CAPTURE, "MUTATION_OUTCOME_UNKNOWN")]
)
async def test_a_failing_service_is_answered_with_an_envelope_that_quotes_nothing(
    server: Server[Any],
    host: Host,
    service: FakeService,
    caplog: pytest.LogCaptureFixture,
    tool: str,
    code: str,
) -> None:
    service.failure = RuntimeError("canary-7d1f in the exception message")
    arguments = CAPTURE_ARGUMENTS if tool == CAPTURE else SEARCH_ARGUMENTS
    result = await call(server, tool, arguments, host.meta(tool))
    assert result.is_error is True
    assert result.structured_content is not None
    assert result.structured_content["error"]["code"] == code
    assert result.structured_content["error"]["retriable"] is True
    assert "RuntimeError" in caplog.text
    assert "canary-7d1f" not in caplog.text
    assert "canary-7d1f" not in json.dumps(result.structured_content)
