"""Lenient reading of JSON-RPC messages: what ``wire`` sets aside and what the SDK then sees."""

from __future__ import annotations

import pytest
from engram_conformance.reference_impl import wire


def test_invalid_utf8_becomes_lone_surrogates_for_the_validator_to_refuse() -> None:
    assert wire.parse(b'{"q":"a\xffb"}') == {"q": "a\udcffb"}
    assert wire.parse(b'{"q":"\\ud800"}') == {"q": "\ud800"}


@pytest.mark.parametrize("data", [b"", b"nope", b"{", b"[" * 100_000 + b"]" * 99_999])
def test_what_is_not_json_text(data: bytes) -> None:
    with pytest.raises(wire.NotJson):
        wire.parse(data)


def test_a_tool_calls_arguments_are_set_aside_exactly_as_sent() -> None:
    arguments = [{"q": "\ud800"}, [[[]]]]
    message = {
        "jsonrpc": "2.0",
        "id": "\udc00",
        "method": "tools/call",
        "params": {"name": "t", "arguments": arguments, "_meta": {"k": "\ud800"}},
    }
    forwarded, sent = wire.set_aside(message)
    assert sent == wire.SentArguments(arguments)
    assert forwarded == {
        "jsonrpc": "2.0",
        "id": "\ufffd",
        "method": "tools/call",
        "params": {"name": "t", "arguments": {}, "_meta": {"k": "\ufffd"}},
    }
    assert wire.parse(wire.encode(forwarded)) == forwarded


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"arguments": 1}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}},
        [{"method": "tools/call", "params": {"arguments": 1}}],
        42,
    ],
)
def test_nothing_is_set_aside_from_other_messages(message: object) -> None:
    assert wire.set_aside(message) == (message, None)
