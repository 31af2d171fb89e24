"""Every tool's success path through the MCP client, over stdio and streamable HTTP, against
``engram-reference serve`` running as a subprocess with the real memory service.

The HTTP server is shared by the module, so each test binds its own tenant.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.spec.engram_memory import Spec, wall_clock_ms
from engram_conformance.spec.engram_memory.tool_names import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared.exceptions import MCPError

from ..host import PURPOSE, Host
from ..servers import RunningServer, http_client
from .service_fixtures import capture_arguments

pytestmark = pytest.mark.anyio

#: A text no log line may contain.
CANARY = "canary-5c0ffee: lexical ranking keeps ties stable by record_id"

Connect = Callable[..., AbstractAsyncContextManager[Client]]
_tenants = itertools.count()


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def connect(transport: str, reference_stdio: Connect, request: pytest.FixtureRequest) -> Connect:
    """``async with connect(mode=...) as client``: a client of the transport under test."""
    if transport == "stdio":
        return lambda mode="legacy": reference_stdio("--verbose", mode=mode)
    running: RunningServer = request.getfixturevalue("reference_http")
    return lambda mode="legacy": http_client(running, mode=mode)


@pytest.fixture
def server_log(transport: str, tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    if transport == "stdio":
        return tmp_path / "server.log"
    return request.getfixturevalue("reference_http").log


class Caller:
    """Calls tools as one host binding (a tenant of its own) and checks every envelope."""

    def __init__(self, client: Client, host: Host, spec: Spec) -> None:
        self.client = client
        self.host = host
        self.spec = spec
        self.tenant = f"tenant-e2e-{next(_tenants)}"
        self.keys = itertools.count()

    def key(self, label: str) -> str:
        return f"{label}-{self.tenant}-{next(self.keys):08d}"

    async def envelope(self, tool: str, arguments: dict[str, Any], **claims: Any) -> dict[str, Any]:
        meta = self.host.meta(tool, tenant=self.tenant, **claims)
        result = await self.client.call_tool(tool, arguments, meta=meta)
        envelope = result.structured_content
        assert envelope is not None
        [text] = result.content
        assert text.type == "text"
        assert json.loads(text.text) == envelope
        assert result.is_error is (not envelope["ok"])
        self._check(tool, envelope)
        return envelope

    async def value(self, tool: str, arguments: dict[str, Any], **claims: Any) -> dict[str, Any]:
        envelope = await self.envelope(tool, arguments, **claims)
        assert envelope["ok"] is True, envelope
        return envelope["output"]["value"]

    async def confirmed(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.value(
            tool, arguments, confirmation=self.host.confirmation(tool, arguments)
        )

    def _check(self, tool: str, envelope: dict[str, Any]) -> None:
        schema_id = self.spec.contract["envelope_schema"]
        validator = Draft202012Validator(self.spec.schema(schema_id), registry=self.spec.registry)
        assert not list(validator.iter_errors(envelope))
        if envelope["ok"]:
            output = self.spec.schema(self.spec.tools[tool].output_schema)
            validator = Draft202012Validator(output, registry=self.spec.registry)
            assert not list(validator.iter_errors(envelope["output"]["value"]))

    async def pending(self, text: str = CANARY) -> str:
        arguments = capture_arguments(
            key=self.key("capture"), text=text, t=wall_clock_ms() - 60_000
        )
        value = await self.value(CAPTURE, arguments)
        assert value["status"] == "committed_pending"
        return value["candidate_id"]


async def test_capture_admit_search_get_forget(
    connect: Connect, host: Host, spec: Spec, server_log: Path
) -> None:
    async with connect() as client:
        caller = Caller(client, host, spec)
        candidate_id = await caller.pending()
        admission = {"candidate_id": candidate_id, "idempotency_key": caller.key("admit")}
        outcome = (await caller.value(ADMIT, admission))["outcome"]
        assert outcome["status"] == "accepted"
        record_id = outcome["record_id"]

        search = {"query": "lexical ranking", "purpose_ref": PURPOSE}
        found = await caller.value(SEARCH, search)
        assert [packet["record"]["record_id"] for packet in found["records"]] == [record_id]
        record = await caller.value(GET, {"record_id": record_id, "purpose_ref": PURPOSE})
        assert record["record"]["record_id"] == record_id

        forget = {
            "record_id": record_id,
            "idempotency_key": caller.key("forget"),
            "reason_ref": "reason:superseded",
        }
        receipt = (await caller.confirmed(FORGET, forget))["receipt"]
        assert (receipt["from_state"], receipt["to_state"]) == ("accepted_current", "tombstoned")
        assert (await caller.value(SEARCH, search))["records"] == []
        gone = await caller.envelope(GET, {"record_id": record_id, "purpose_ref": PURPOSE})
        assert gone["error"]["code"] == "NOT_FOUND"
    assert "engram_memory_forget" in server_log.read_text()
    assert CANARY not in server_log.read_text()


async def test_capture_then_withdraw(connect: Connect, host: Host, spec: Spec) -> None:
    async with connect() as client:
        caller = Caller(client, host, spec)
        withdraw = {
            "candidate_id": await caller.pending(),
            "idempotency_key": caller.key("withdraw"),
            "reason_ref": "reason:captured-in-error",
        }
        value = await caller.confirmed(WITHDRAW, withdraw)
        assert value["receipt"]["to_state"] == "withdrawn"
        assert value["key_destruction"] == "complete"


async def test_protocol_refusals_over_the_wire(connect: Connect, host: Host, spec: Spec) -> None:
    async with connect() as client:
        listed = await client.list_tools(meta=host.meta(SEARCH, tools=[GET, SEARCH]))
        assert [tool.name for tool in listed.tools] == [SEARCH, GET]
        assert len((await client.list_tools()).tools) == 6
        search = {"query": "q", "purpose_ref": PURPOSE}
        for meta, code in [
            (None, -32603),
            (host.meta(SEARCH, purpose_ref="purpose:other"), -32603),
            (host.meta(SEARCH, tools=[GET]), -32602),
        ]:
            with pytest.raises(MCPError) as raised:
                await client.call_tool(SEARCH, search, meta=meta)
            assert (raised.value.code, raised.value.message) == (
                code,
                spec.protocol_errors[code].message,
            )
        still = await client.call_tool(SEARCH, search, meta=host.meta(SEARCH))
        assert still.is_error is False


async def test_the_modern_protocol_revision_carries_the_context_too(
    connect: Connect, host: Host, spec: Spec
) -> None:
    async with connect(mode="auto") as client:
        caller = Caller(client, host, spec)
        await caller.pending()
        found = await caller.value(SEARCH, {"query": "ranking", "purpose_ref": PURPOSE})
        assert found["records"] == []  # pending material is never found


def test_nothing_reaches_stdout_of_the_http_server(reference_http: RunningServer) -> None:
    assert reference_http.stdout.read_bytes() == b""
