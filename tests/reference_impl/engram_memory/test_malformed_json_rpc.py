"""Request correlation (issue 12, finding 10; rule HOST-025), over stdio and streamable HTTP.

A request whose id is no string or integer is answered -32600 with id null, never taken for a
notification; what is not I-JSON (a repeated key, a number too long to read, nesting too deep)
is answered under the request's id: INVALID_SCHEMA inside a call's arguments, -32600 in the
envelope. After each, the server still serves.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl import wire
from engram_conformance.spec.engram_memory.tool_names import SEARCH

from ..host import PURPOSE, Host
from ..servers import RawHttp, RawStdio, RunningServer, serve_command

DEEP = b"[" * 10_000 + b"]" * 10_000
HUGE = b"9" * 5_000


def _call(host: Host, request_id: int, arguments: bytes) -> bytes:
    meta = b'{"engram/invocation":"%s"}' % host.token(SEARCH).encode()
    params = b'{"name":"%s","_meta":%s,"arguments":%s}' % (SEARCH.encode(), meta, arguments)
    return b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}' % (request_id, params)


def _query(query: bytes) -> bytes:
    return b'{"query":%s,"purpose_ref":"%s"}' % (query, PURPOSE.encode())


BAD_IDS = {"a fraction": b"7.5", "true": b"true", "an object": b"{}", "an array": b"[]"}
BAD_ARGUMENTS = {
    "a repeated argument": _query(b'"a"')[:-1] + b',"query":"b"}',
    "a repeated key inside an argument": _query(b'{"a":1,"a":2}'),
    "nesting 10,000 deep": _query(DEEP),
    "a 5,000-digit number": _query(HUGE),
    "a negative 5,000-digit number": _query(b"-" + HUGE),
}
LIST = b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"'
BAD_ENVELOPES = {
    "repeated keys in params": LIST + b',"params":{"a":1,"a":2}}',
    "params nesting 10,000 deep": LIST + b',"params":' + DEEP + b"}",
}


@pytest.fixture(scope="module")
def stdio(tmp_path_factory: pytest.TempPathFactory, host_key_file: Path) -> Iterator[RawStdio]:
    folder = tmp_path_factory.mktemp("malformed-stdio")
    raw = RawStdio(serve_command(folder / "state", host_key_file), folder / "server.log")
    yield raw
    assert raw.close() == 0


@pytest.fixture(scope="module")
def http(reference_http: RunningServer) -> Iterator[RawHttp]:
    raw = RawHttp(reference_http)
    yield raw
    raw.close()


@pytest.fixture(params=["stdio", "http"])
def raw(request: pytest.FixtureRequest) -> RawStdio | RawHttp:
    return request.getfixturevalue(request.param)


def _still_serves(raw: RawStdio | RawHttp, host: Host) -> None:
    answer = raw.exchange(_call(host, 99, _query(b'"ranking"')))
    assert (answer["id"], answer["result"]["isError"]) == (99, False), answer


@pytest.mark.parametrize("request_id", BAD_IDS.values(), ids=BAD_IDS.keys())
def test_a_request_with_an_id_of_no_string_or_integer_gets_invalid_request(
    raw: RawStdio | RawHttp, host: Host, request_id: bytes
) -> None:
    answer = raw.exchange(b'{"jsonrpc":"2.0","id":%s,"method":"tools/list"}' % request_id)
    assert (answer["id"], answer["error"]["code"]) == (None, -32600)
    _still_serves(raw, host)


@pytest.mark.parametrize("arguments", BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_arguments_that_are_not_i_json_get_invalid_schema_under_their_id(
    raw: RawStdio | RawHttp, host: Host, arguments: bytes
) -> None:
    answer = raw.exchange(_call(host, 41, arguments))
    assert answer["id"] == 41
    assert answer["result"]["structuredContent"]["error"]["code"] == "INVALID_SCHEMA"
    _still_serves(raw, host)


@pytest.mark.parametrize("template", BAD_ENVELOPES.values(), ids=BAD_ENVELOPES.keys())
def test_an_envelope_that_is_not_i_json_gets_invalid_request_under_its_id(
    raw: RawStdio | RawHttp, host: Host, template: bytes
) -> None:
    answer = raw.exchange(template % 42)
    assert (answer["id"], answer["error"]["code"]) == (42, -32600)
    _still_serves(raw, host)


def test_a_message_with_a_repeated_key_has_no_id(raw: RawStdio | RawHttp, host: Host) -> None:
    """Which of the repeated keys would be the message's? None is read, the id neither."""
    answer = raw.exchange(LIST % 43 + b',"method":"tools/list"}')
    assert (answer["id"], answer["error"]["code"]) == (None, -32600)
    _still_serves(raw, host)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b'{"a":1,"a":1}', math.inf),
        (b"[" + HUGE + b",-" + HUGE + b",12]", [math.inf, -math.inf, 12]),
        (b'["[[[[", {"k": "]]]"}]', ["[[[[", {"k": "]]]"}]),
    ],
)
def test_what_is_not_i_json_reads_as_an_infinite_number(text: bytes, value: Any) -> None:
    assert wire.parse(text) == value


def test_nesting_deeper_than_the_bound_is_cut_there() -> None:
    value = wire.parse(b'[["[[["],' + b"[" * 5_000 + b"]" * 5_000 + b',"]]]"]')
    assert (value[0], value[2]) == (["[[["], "]]]")
    depth, inner = 1, value[1]
    while isinstance(inner, list):
        depth, inner = depth + 1, inner[0]
    assert (depth, inner) == (wire.MAX_DEPTH, math.inf)
