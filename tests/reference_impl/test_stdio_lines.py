"""The stdio transport's reading of lines: a line too long is refused without being held."""

from __future__ import annotations

import io
import json

from engram_conformance.reference_impl import stdio, wire
from mcp_types import JSONRPCError, JSONRPCRequest

LIMIT = wire.MAX_MESSAGE_BYTES


class BoundedReads(io.BytesIO):
    """Input that refuses to hand out a line without a bound on its length."""

    def readline(self, size: int | None = -1) -> bytes:
        assert size is not None and 0 < size <= LIMIT + 1, f"an unbounded read ({size})"
        return super().readline(size)


def _line(request_id: int) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}
    return json.dumps(message).encode() + b"\n"


def test_a_line_too_long_is_refused_then_the_next_one_read() -> None:
    too_long = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"' + b"x" * LIMIT + b'"}}\n'
    stream = BoundedReads(b"\n \n" + too_long + _line(2) + b"x" * (LIMIT + 1))
    refused = stdio._next(stream)
    assert refused is not None and isinstance(refused.message, JSONRPCError)
    assert (refused.message.id, refused.message.error.code) == (None, -32600)
    following = stdio._next(stream)
    assert following is not None and isinstance(following.message, JSONRPCRequest)
    assert following.message.id == 2
    unended = stdio._next(stream)  # the last line, longer than the limit and never ended
    assert unended is not None and isinstance(unended.message, JSONRPCError)
    assert stdio._next(stream) is None


def test_a_line_at_the_limit_is_read() -> None:
    head = b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"p":"'
    at_limit = head + b"x" * (LIMIT - len(head) - 3) + b'"}}\n'
    assert len(at_limit) == LIMIT + 1
    read = stdio._next(BoundedReads(at_limit))
    assert read is not None and isinstance(read.message, JSONRPCRequest)
