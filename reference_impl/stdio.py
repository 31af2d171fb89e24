"""The stdio transport: newline-delimited JSON-RPC on the process's stdin and stdout.

It replaces the SDK's ``stdio_server`` for two reasons: arguments are read leniently (see
``wire``), and a line that is not a JSON-RPC message is answered as JSON-RPC 2.0 says (-32700 or
-32600, id null when none can be read) instead of dropped, so a client is never left waiting: a
request whose id is a fraction, a boolean or an object included, which the SDK would take for a
notification. A line longer than ``wire.MAX_MESSAGE_BYTES`` is answered -32600 ("Request too
large", id null) and skipped without being held whole.
stdout belongs to the protocol: while serving, file descriptor 1 points at stderr, so a stray
print cannot corrupt it.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import stat
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO, cast

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic_core import PydanticSerializationError

from . import wire

logger = logging.getLogger(__name__)

#: How much of a line too long to read is held at once while it is skipped.
_SKIPPED_BYTES = 1 << 16
Streams = tuple[MemoryObjectReceiveStream[Any], MemoryObjectSendStream[SessionMessage]]


def claim_standard_streams() -> tuple[BinaryIO, BinaryIO]:
    """Private handles on the protocol's stdin and stdout; fd 0 then reads nothing and fd 1
    writes to stderr, for the rest of the process."""
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    return protocol_in, protocol_out


@asynccontextmanager
async def stdio_streams(stdin: BinaryIO, stdout: BinaryIO) -> AsyncIterator[Streams]:
    """The read and write streams ``Server.run`` serves, over binary ``stdin`` and ``stdout``."""
    read_send, read_receive = anyio.create_memory_object_stream[Any](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_send.clone()  # the reader's own handle, for the errors it answers itself
    async with anyio.create_task_group() as writing:
        writing.start_soon(_write, stdout, write_receive, stdin)
        async with anyio.create_task_group() as reading:
            reading.start_soon(_read, stdin, read_send, answers, stdout)
            yield read_receive, write_send
            reading.cancel_scope.cancel()  # the server is done: stop reading, finish writing


async def _read(
    stdin: BinaryIO,
    messages: MemoryObjectSendStream[Any],
    answers: MemoryObjectSendStream[SessionMessage],
    stdout: BinaryIO,
) -> None:
    """Read and parse lines: on the event loop where the input is a pipe or a socket other than
    ``stdout`` (its reader hands each message over without a thread's round trip), else in a
    daemon thread of its own."""
    async with messages, answers:
        reader = await _LoopReader.over(stdin, stdout)
        if reader is None:
            await _read_in_a_thread(stdin, messages, answers)
            return
        try:
            while (message := await reader.next()) is not None:
                await _bound_for(message, messages, answers).send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # the server stopped reading
        finally:
            reader.close()


async def _read_in_a_thread(
    stdin: BinaryIO,
    messages: MemoryObjectSendStream[Any],
    answers: MemoryObjectSendStream[SessionMessage],
) -> None:
    """Read and parse lines in a daemon thread: a thread blocked in ``readline`` must not keep
    the process alive once the server stops (an anyio worker thread did: SIGINT left the server
    running until its next input line)."""
    token = anyio.lowlevel.current_token()
    ended = anyio.Event()

    def pump() -> None:
        try:
            while (message := _next(stdin)) is not None:
                send = _bound_for(message, messages, answers).send
                anyio.from_thread.run(send, message, token=token)
            anyio.from_thread.run_sync(ended.set, token=token)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, RuntimeError):
            pass  # the server stopped reading (RuntimeError: its event loop is gone)

    threading.Thread(target=pump, name="stdio reader", daemon=True).start()
    await ended.wait()


def _bound_for(
    message: SessionMessage,
    messages: MemoryObjectSendStream[Any],
    answers: MemoryObjectSendStream[SessionMessage],
) -> MemoryObjectSendStream[Any]:
    """Where a read message goes: the reader's own answer (to a line it refused) straight to
    the writer, anything else to the server."""
    return answers if isinstance(message, _ReadersAnswer) else messages


class _LoopReader:
    """The input read by the event loop's own pipe transport, a line at a time, as ``_next``
    reads it: its buffer's limit is ``wire.MAX_MESSAGE_BYTES``, so a line longer than that is
    refused and skipped, never held whole (the transport pauses at twice the limit)."""

    def __init__(self, reader: asyncio.StreamReader, transport: asyncio.ReadTransport) -> None:
        self.reader, self.transport = reader, transport

    @classmethod
    async def over(cls, stdin: BinaryIO, stdout: BinaryIO) -> _LoopReader | None:
        """The loop's reader of ``stdin``, or None where a thread must read."""
        if not _pipe_or_socket_apart(stdin, stdout):
            return None
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=wire.MAX_MESSAGE_BYTES, loop=loop)
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        transport, _ = await loop.connect_read_pipe(lambda: protocol, stdin)
        return cls(reader, transport)

    async def next(self) -> SessionMessage | None:
        """As ``_next``: the next line's message or error, None at the end of the input."""
        while True:
            try:
                line = await self.reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                if not end.partial:
                    return None
                line = end.partial  # the last line, not ended
            except asyncio.LimitOverrunError:
                await self._skip_line()
                return _error(None, INVALID_REQUEST, "Request too large")
            if not line.isspace():
                return _decode(line)

    async def _skip_line(self) -> None:
        while True:
            try:
                await self.reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as over:  # what was looked through: no line's end
                await self.reader.readexactly(over.consumed)
            except asyncio.IncompleteReadError:
                return

    def close(self) -> None:
        self.transport.close()


def _next(stdin: BinaryIO) -> SessionMessage | None:
    """The message of the next line that is not blank, or the JSON-RPC error that answers it;
    None at the end of the input. A line longer than ``wire.MAX_MESSAGE_BYTES`` is refused
    and skipped, never held whole."""
    while line := stdin.readline(wire.MAX_MESSAGE_BYTES + 1):
        if len(line) > wire.MAX_MESSAGE_BYTES and not line.endswith(b"\n"):
            _skip_line(stdin)
            return _error(None, INVALID_REQUEST, "Request too large")
        if not line.isspace():
            return _decode(line)
    return None


def _skip_line(stdin: BinaryIO) -> None:
    while (piece := stdin.readline(_SKIPPED_BYTES)) and not piece.endswith(b"\n"):
        pass


def _decode(line: bytes) -> SessionMessage:
    """The message of one line, or the JSON-RPC error that answers it."""
    try:
        reading = wire.read(line)
    except wire.NotJson:
        return _error(None, PARSE_ERROR, "Parse error")
    except wire.InvalidRequest as invalid:
        return _error(invalid.request_id, INVALID_REQUEST, "Invalid Request")
    sent = reading.sent
    metadata = ServerMessageMetadata(request_context=sent) if sent is not None else None
    return SessionMessage(reading.message, metadata=metadata)


class _ReadersAnswer(SessionMessage):
    """The reader's own answer to a line it refused: written out as it is, where a JSON-RPC
    error the client sent (its answer to a request of the server's) goes to the server, which
    was echoed back word for word when both were told apart by their type (attack round 6)."""


def _error(request_id: str | int | None, code: int, message: str) -> SessionMessage:
    error = ErrorData(code=code, message=message)
    return _ReadersAnswer(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


async def _write(
    stdout: BinaryIO, outgoing: MemoryObjectReceiveStream[SessionMessage], stdin: BinaryIO
) -> None:
    """Write each message as one line: through the event loop where the output is a pipe or a
    socket other than ``stdin`` (``_LoopPipe``), else in a worker thread, the write and its
    flush in one hand-off. Either way a client that stops reading holds up this writer, never
    the loop."""
    pipe = await _LoopPipe.over(stdout, stdin)
    async with outgoing:
        async for item in outgoing:
            try:
                line = item.message.model_dump_json(by_alias=True, exclude_unset=True)
            except PydanticSerializationError:
                logger.error("dropped an outgoing message that cannot be encoded as JSON")
                continue
            data = line.encode("utf-8") + b"\n"
            if pipe is None:
                await anyio.to_thread.run_sync(_write_line, stdout, data)
            else:
                await pipe.write(data)
    if pipe is not None:
        await pipe.close()


def _write_line(stdout: BinaryIO, line: bytes) -> None:
    stdout.write(line)
    stdout.flush()


class _LoopPipe(asyncio.Protocol):
    """The output written by the event loop's own pipe transport, which waits only while the
    client's end is full. It spares the thread hand-off of each message: a fifth of the
    server's CPU a call (issue 25). Not for a terminal or a file (the transport takes neither),
    nor for an output that is the input too (one socket: the transport makes it non-blocking,
    and the reader thread's blocking reads would end)."""

    transport: asyncio.WriteTransport

    def __init__(self) -> None:
        self.room = asyncio.Event()
        self.room.set()
        self.lost: BaseException | None = None
        self.closed = asyncio.Event()

    @classmethod
    async def over(cls, stdout: BinaryIO, stdin: BinaryIO) -> _LoopPipe | None:
        """The loop's pipe on ``stdout``, or None where the thread must write."""
        if not _pipe_or_socket_apart(stdout, stdin):
            return None
        _, pipe = await asyncio.get_running_loop().connect_write_pipe(cls, stdout)
        return pipe

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.WriteTransport, transport)

    def pause_writing(self) -> None:
        self.room.clear()

    def resume_writing(self) -> None:
        self.room.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc or BrokenPipeError("the client closed the server's output")
        self.room.set()
        self.closed.set()

    async def write(self, data: bytes) -> None:
        """Hand ``data`` to the transport, then wait while its buffer is over its high mark;
        the error a blocking write would raise once the client's end is closed."""
        if self.lost is not None:
            raise self.lost
        self.transport.write(data)
        await self.room.wait()

    async def close(self) -> None:
        """Write what is buffered, then close (the output's end, as the process's would)."""
        self.transport.close()
        await self.closed.wait()


def _pipe_or_socket_apart(stream: BinaryIO, other: BinaryIO) -> bool:
    """Whether ``stream`` is a pipe or a socket, and not the file ``other`` is (the event
    loop's transport makes it non-blocking, under any blocking reads or writes of the other's
    thread; a terminal would stay so after the server)."""
    try:
        one, two = os.fstat(stream.fileno()), os.fstat(other.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return False
    apart = (one.st_dev, one.st_ino) != (two.st_dev, two.st_ino)
    return apart and (stat.S_ISFIFO(one.st_mode) or stat.S_ISSOCK(one.st_mode))
