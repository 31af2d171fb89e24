"""The stdio transport's reading of lines: a line too long is refused without being held."""

from __future__ import annotations

import asyncio
import io
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl import stdio, wire
from mcp.shared.message import SessionMessage
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


def _read_by_the_loop(data: bytes) -> list[SessionMessage]:
    """What the event loop's reader (``stdio._LoopReader``) makes of ``data``, then its end."""

    async def read() -> list[SessionMessage]:
        reader = asyncio.StreamReader(limit=LIMIT)
        reader.feed_data(data)
        reader.feed_eof()
        lines = stdio._LoopReader(reader, transport=None)  # type: ignore[arg-type]
        read = []
        while (message := await lines.next()) is not None:
            read.append(message)
        return read

    return asyncio.run(read())


def test_the_loops_reader_refuses_a_line_too_long_then_reads_the_next_one() -> None:
    too_long = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"' + b"x" * LIMIT + b'"}}\n'
    data = b"\n \n" + too_long + _line(2) + b"x" * (LIMIT + 1)
    refused, following, unended = _read_by_the_loop(data)
    for error in (refused, unended):  # the last line, longer than the limit and never ended
        assert isinstance(error.message, JSONRPCError)
        assert (error.message.id, error.message.error.code) == (None, -32600)
    assert isinstance(following.message, JSONRPCRequest) and following.message.id == 2


def test_the_loops_reader_reads_a_line_at_the_limit_and_an_unended_last_line() -> None:
    head = b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"p":"'
    at_limit = head + b"x" * (LIMIT - len(head) - 3) + b'"}}\n'
    read = _read_by_the_loop(at_limit + _line(4).rstrip(b"\n"))
    assert [message.message.id for message in read] == [3, 4]  # type: ignore[union-attr]


def _ignoring_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("started", ["as usual", "ignoring SIGINT"])
@pytest.mark.parametrize("contract", ["mem", "engram-memory"])
def test_an_interrupt_stops_the_server_while_its_input_stays_open(
    tmp_path: Path, contract: str, host_key_file: Path, started: str
) -> None:
    """Attack round 5: after SIGINT the server ran on until its next input line (a reader
    thread blocked in readline kept the process alive). It stops on SIGINT even when started
    as a background job is, with SIGINT ignored (and so whatever the test runner's own)."""
    command = [str(Path(sys.executable).with_name("engram-reference")), "serve"]
    command += ["--contract", contract, "--state-dir", str(tmp_path / "state")]
    if contract == "engram-memory":
        command += ["--host-public-key", str(host_key_file)]
    with subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=_ignoring_interrupts if started == "ignoring SIGINT" else None,
    ) as server:
        try:
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(_line(1))  # answered: the server is serving
            server.stdin.flush()
            assert b'"id":1' in server.stdout.readline()
            server.send_signal(signal.SIGINT)
            assert server.wait(timeout=30) == 128 + signal.SIGINT  # the input is still open
        finally:
            server.kill()


def test_an_error_the_client_sends_is_not_written_back(tmp_path: Path) -> None:
    """Attack round 6: a JSON-RPC error object sent to the server (a client's answer to a
    request of the server's) came back on its output word for word."""
    command = [str(Path(sys.executable).with_name("engram-reference")), "serve"]
    command += ["--contract", "mem", "--state-dir", str(tmp_path / "state")]
    sent = {"jsonrpc": "2.0", "id": 5, "error": {"code": 1, "message": "the client's"}}
    lines = [_line(1), json.dumps(sent).encode() + b"\n", b"{\n", _line(2)]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as server:
        try:
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(b"".join(lines))
            server.stdin.flush()
            # three answers (the reader's own may come first), then what else came before EOF
            answers = [json.loads(server.stdout.readline()) for _ in range(3)]
            server.stdin.close()
            answers += [json.loads(line) for line in server.stdout.read().splitlines()]
            assert server.wait(timeout=30) == 0
        finally:
            server.kill()
    assert sorted((answer.get("id") for answer in answers), key=str) == [1, 2, None]
    assert next(a for a in answers if a.get("id") is None)["error"]["code"] == -32700  # "{"
    assert all("the client's" not in json.dumps(answer) for answer in answers)


def _serve_mem(tmp_path: Path, **streams: Any) -> subprocess.Popen[bytes]:
    command = [str(Path(sys.executable).with_name("engram-reference")), "serve"]
    command += ["--contract", "mem", "--state-dir", str(tmp_path / "state")]
    return subprocess.Popen(command, stderr=subprocess.DEVNULL, **streams)


#: tools/list answers of about ten kilobytes each: far more than a pipe holds (64 KiB here)
HELD_UP = 300


def _initialized(request_id: int) -> bytes:
    """The handshake (its answer has ``request_id``), after which tools are listed."""
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
    hello["clientInfo"] = {"name": "test", "version": "1"}
    messages = [
        {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def test_answers_held_up_by_a_client_not_reading_all_come_once_it_reads(tmp_path: Path) -> None:
    """Over a pipe the server writes through the event loop's transport, which waits while
    the client's end is full: once the client reads, every answer comes, none twice."""
    with _serve_mem(tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as server:
        try:
            assert server.stdin is not None and server.stdout is not None
            listings = (_line(number) for number in range(1, HELD_UP + 1))
            server.stdin.write(_initialized(0) + b"".join(listings))
            server.stdin.flush()
            time.sleep(1)  # not reading: its writes wait (no time is asserted)
            answers = [json.loads(server.stdout.readline()) for _ in range(HELD_UP + 1)]
            server.stdin.close()
            assert server.stdout.read() == b""  # nothing more
            assert server.wait(timeout=60) == 0
        finally:
            server.kill()
    assert sorted(answer["id"] for answer in answers) == list(range(HELD_UP + 1))
    assert all(answer["result"]["tools"] for answer in answers if answer["id"])


def test_an_interrupt_stops_the_server_while_its_output_is_full(tmp_path: Path) -> None:
    """A client that stops reading holds up the writer, never the event loop: SIGINT still
    stops the server."""
    with _serve_mem(tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as server:
        try:
            assert server.stdin is not None and server.stdout is not None
            server.stdin.write(_initialized(0))
            server.stdin.flush()
            assert b'"id":0' in server.stdout.readline()  # serving
            server.stdin.write(b"".join(_line(number) for number in range(1, HELD_UP + 1)))
            server.stdin.flush()
            time.sleep(1)  # its output fills up
            server.send_signal(signal.SIGINT)
            assert server.wait(timeout=30) == 128 + signal.SIGINT
        finally:
            server.kill()


def test_a_socket_that_is_both_input_and_output_is_served(tmp_path: Path) -> None:
    """One socket as the server's stdin and stdout (some clients start servers so): the output
    is written by a thread, since the loop's transport would make the shared socket
    non-blocking under the reader's blocking reads."""
    ours, theirs = socket.socketpair()
    with ours, theirs, _serve_mem(tmp_path, stdin=theirs, stdout=theirs) as server:
        try:
            theirs.close()
            ours.sendall(_line(1) + _line(2))
            received = b""
            while received.count(b"\n") < 2:
                piece = ours.recv(1 << 16)
                assert piece, received
                received += piece
            ours.shutdown(socket.SHUT_WR)  # the input ends
            assert server.wait(timeout=30) == 0
        finally:
            server.kill()
    assert sorted(json.loads(line)["id"] for line in received.splitlines()) == [1, 2]
