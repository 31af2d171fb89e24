"""Bad requests never break the server: each gets the contract's answer and the next call is served.

Sent as raw bytes over stdio and streamable HTTP, since an SDK client refuses to send most of
them: arguments that are not an object, lone surrogates, invalid UTF-8, deep nesting, more than
1 MiB of arguments, missing or garbage contexts, unknown tools, text that is not JSON.
"""

from __future__ import annotations

import codecs
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl import wire
from engram_conformance.reference_impl.streamable_http import MAX_BODY_BYTES
from engram_conformance.spec.engram_memory.tool_names import SEARCH

from ..host import META_KEY, PURPOSE, Host
from ..servers import RawHttp, RawStdio, RunningServer, serve_command

INVALID_SCHEMA = "INVALID_SCHEMA"
_ids = itertools.count(1)


def call(
    arguments: bytes | None, *, meta: Any = "valid", tool: bytes = b'"engram_memory_search"'
) -> Any:
    """A tools/call line builder: ``arguments`` and the tool name are raw JSON text; ``meta`` is
    ``"valid"`` (a fresh context for search), None (no ``_meta``) or a ``_meta`` object."""

    def build(host: Host) -> bytes:
        params = [b'"name":' + tool]
        if meta is not None:
            chosen = host.meta(SEARCH) if meta == "valid" else meta
            params.append(b'"_meta":' + json.dumps(chosen).encode())
        if arguments is not None:
            params.append(b'"arguments":' + arguments)
        body = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s}}'
        return body % (next(_ids), b",".join(params))

    return build


def search_arguments(query: bytes) -> bytes:
    return b'{"query":' + query + b',"purpose_ref":"' + PURPOSE.encode() + b'"}'


HUGE_QUERY = json.dumps("x" * (1 << 20)).encode()
ENVELOPE_ERRORS = {
    "arguments an array": call(b"[1,2,3]"),
    "arguments a string": call(b'"query"'),
    "arguments null": call(b"null"),
    "arguments absent": call(None),
    "a lone high surrogate": call(search_arguments(b'"ranking \\ud800"')),
    "a lone low surrogate": call(search_arguments(b'"\\udc00"')),
    "invalid UTF-8": call(search_arguments(b'"ranking \xff\xfe"')),
    "a truncated UTF-8 sequence": call(search_arguments(b'"caf\xc3"')),
    "500 levels of nesting": call(search_arguments(b"[" * 500 + b"]" * 500)),
    "more than 1 MiB of arguments": call(search_arguments(HUGE_QUERY)),
    "an unknown argument": call(b'{"query":"q","purpose_ref":"' + PURPOSE.encode() + b'","x":1}'),
}
PROTOCOL_ERRORS = {
    "no _meta": (call(search_arguments(b'"q"'), meta=None), -32603),
    "a garbage context": (call(search_arguments(b'"q"'), meta={META_KEY: "x.y.z"}), -32603),
    "a context that is an object": (call(b"{}", meta={META_KEY: {"alg": "none"}}), -32603),
    "another purpose": (
        call(b'{"query":"q","purpose_ref":"purpose:other"}'),
        -32603,
    ),
    "an unknown tool": (call(b"{}", tool=b'"engram_memory_rewind"'), -32602),
    "a tool name with a lone surrogate": (call(b"{}", tool=b'"engram_memory_\\udfff"'), -32602),
}
NOT_JSON_RPC = {
    "not JSON": b"this is not JSON",
    "truncated JSON": b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{',
    "100000 levels of nesting": b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "a JSON number": b"42",
    "an empty object": b"{}",
}


class Session:
    """One raw session, stdio or HTTP, with the host that signs its contexts."""

    def __init__(self, raw: RawStdio | RawHttp, host: Host, log: Path) -> None:
        self.raw = raw
        self.host = host
        self.log = log

    def answer(self, build: Any) -> dict[str, Any]:
        return self.raw.exchange(build(self.host))

    def assert_still_serving(self) -> None:
        answer = self.answer(call(search_arguments(b'"ranking"')))
        assert answer["result"]["isError"] is False, answer


@pytest.fixture(scope="module")
def stdio_session(
    tmp_path_factory: pytest.TempPathFactory, host: Host, host_key_file: Path
) -> Iterator[Session]:
    folder = tmp_path_factory.mktemp("raw-stdio")
    log = folder / "server.log"
    raw = RawStdio(serve_command(folder / "state", host_key_file, "--verbose"), log)
    yield Session(raw, host, log)
    assert raw.close() == 0


@pytest.fixture(scope="module")
def http_session(reference_http: RunningServer, host: Host) -> Iterator[Session]:
    raw = RawHttp(reference_http)
    yield Session(raw, host, reference_http.log)
    raw.close()


@pytest.fixture(params=["stdio", "http"])
def session(request: pytest.FixtureRequest) -> Session:
    return request.getfixturevalue(f"{request.param}_session")


@pytest.mark.parametrize("build", ENVELOPE_ERRORS.values(), ids=ENVELOPE_ERRORS.keys())
def test_bad_arguments_get_an_invalid_schema_envelope(session: Session, build: Any) -> None:
    answer = session.answer(build)
    result = answer["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == INVALID_SCHEMA
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    session.assert_still_serving()


@pytest.mark.parametrize(("build", "code"), PROTOCOL_ERRORS.values(), ids=PROTOCOL_ERRORS.keys())
def test_protocol_refusals(session: Session, build: Any, code: int) -> None:
    assert session.answer(build)["error"]["code"] == code
    session.assert_still_serving()


@pytest.mark.parametrize("line", NOT_JSON_RPC.values(), ids=NOT_JSON_RPC.keys())
def test_text_that_is_not_a_json_rpc_request_is_answered_with_an_error(
    session: Session, line: bytes
) -> None:
    answer = session.raw.exchange(line)
    assert answer["id"] is None
    assert answer["error"]["code"] in (-32700, -32600, -32602)
    session.assert_still_serving()


def test_stdio_answers_parse_errors_and_invalid_requests_as_json_rpc_says(
    stdio_session: Session,
) -> None:
    assert stdio_session.raw.exchange(b"not json")["error"]["code"] == -32700
    answer = stdio_session.raw.exchange(b'{"jsonrpc":"2.0","id":7,"method":5}')
    assert (answer["id"], answer["error"]["code"]) == (7, -32600)


def test_a_body_beyond_the_http_limit_is_413(http_session: Session) -> None:
    assert isinstance(http_session.raw, RawHttp)
    body = search_arguments(json.dumps("x" * MAX_BODY_BYTES).encode())
    assert http_session.raw.post(body).status_code == 413
    http_session.assert_still_serving()


def test_logs_never_quote_arguments(session: Session) -> None:
    """The servers run with --verbose: each call is logged, by tool, audit id and outcome."""
    session.answer(call(search_arguments(b'"canary-9f3e"')))
    session.answer(call(search_arguments(b'"canary-9f3e \\ud800"')))
    session.answer(call(b'{"query":"canary-9f3e","purpose_ref":"purpose:other"}'))
    logs = session.log.read_text()
    assert "engram_memory_search" in logs
    assert "canary-9f3e" not in logs
    assert "x" * 100 not in logs


def test_a_leading_byte_order_mark_is_ignored(session: Session) -> None:
    """RFC 8259 lets a parser ignore it; the request is answered as without it."""
    answer = session.answer(lambda host: codecs.BOM_UTF8 + call(search_arguments(b'"q"'))(host))
    assert answer["result"]["isError"] is False, answer


def test_a_stdio_line_beyond_the_limit_is_refused_and_skipped(stdio_session: Session) -> None:
    """It would be a search with too long a query; it is refused as a message too large."""
    too_long = search_arguments(json.dumps("x" * wire.MAX_MESSAGE_BYTES).encode())
    answer = stdio_session.answer(call(too_long))
    assert (answer["id"], answer["error"]["code"]) == (None, -32600)
    stdio_session.assert_still_serving()
