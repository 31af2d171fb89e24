"""The stdio transport the harness gives the SDK's client: bounded, and able to say what broke.

The SDK's own stdio transport reads lines of any length into memory, drops a line it cannot
parse (the request it answered then waits for its time-out, "no answer within 10 s"), and knows
nothing of how the server ended. This one hands the SDK the same streams, but:

- a line longer than ``MAX_MESSAGE_BYTES``, bytes that are not UTF-8, or text that is no
  JSON-RPC message the SDK can read (a lone surrogate included) end the connection, and the
  ``Wire`` says what arrived (its first bytes, escaped) and why it was refused: the MCP stdio
  transport allows nothing but messages on the server's output. A line that cannot begin a
  JSON object is refused from its first bytes, without waiting for its end;
- the end of the server's output is told with the process's exit status or signal;
- the SDK sees the end the moment the transport does, so that the call in flight fails at once
  rather than waiting for its time-out; the account of why (``Wire.account``) is complete once
  the exit status is known, and whoever asks for it waits for that (``EXIT_WAIT_S`` at most).
  Waiting for the status before ending the SDK's stream raced the call's time-out: the same
  server was told as closed, still running, or silent ("no answer within") from run to run;
- no answer that opens the connection within ``startup_timeout_s`` ends it too: the answer
  to ``initialize``, or to a ``server/discover`` that names a version of the new era (any
  other makes the SDK fall back to ``initialize``), or, for a client that makes no opening
  request, to its first request;
- the process leads a group of its own and is stopped by its pid (``processes``), and its
  stderr goes to the run's bounded ``ServerLog``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream, Process
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter
from mcp_types.jsonrpc import JSONRPCError, JSONRPCMessage, JSONRPCRequest, JSONRPCResponse
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from . import processes
from .server_log import ServerLog

#: The SDK client's streams: what the server sent (or why it could not be read), what to send.
Streams = tuple[ObjectReceiveStream[SessionMessage | Exception], ObjectSendStream[SessionMessage]]
#: The longest message read from a server (the contract's largest answer is about 1 MiB).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
#: How much of refused output the evidence shows.
EVIDENCE_BYTES = 200
#: What may come before a message on a line (JSON's whitespace).
BLANKS = b" \t\r\n"
#: How long the process may take to exit once its output ends, before it is told as running.
EXIT_WAIT_S = 1.0


def evidence(data: bytes | str) -> str:
    """The first bytes of ``data``, escaped, and its size when there is more."""
    if len(data) <= EVIDENCE_BYTES:
        return repr(data)
    unit = "bytes" if isinstance(data, bytes) else "characters"
    return f"{data[:EVIDENCE_BYTES]!r}... ({len(data)} {unit})"


@dataclass
class Wire:
    """What a transport saw that the SDK does not tell: why the connection ended, if it did.

    The first cause noticed is the one told. The end of the server's output or input is told
    with how the process ended (``exited``), which may come a little later."""

    cause: str | None = None
    #: how the server process ended, when the cause is told with it
    status: str | None = None
    _status_follows: bool = False
    _told: anyio.Event = field(default_factory=anyio.Event)

    def end(self, cause: str, *, status_follows: bool = False) -> None:
        """The connection ended because of ``cause``; ``status_follows``: the account is complete
        once ``exited`` says how the process ended."""
        if self.cause is None:
            self.cause = cause
            self._status_follows = status_follows
            if not status_follows:
                self._told.set()

    def exited(self, status: str) -> None:
        """How the process ended, which completes an account that waits for it."""
        if self._status_follows and self.status is None:
            self.status = status
        self._told.set()

    @property
    def problem(self) -> str | None:
        """Why the connection ended, as far as it is known now (None: it has not ended)."""
        if self.cause is None or self.status is None:
            return self.cause
        return f"{self.cause}; it {self.status}"

    async def account(self) -> str | None:
        """Why the connection ended, once the transport has said all it will (at most
        ``EXIT_WAIT_S`` after it ended); None while it has not ended."""
        if self.cause is not None:
            with anyio.move_on_after(EXIT_WAIT_S):
                await self._told.wait()
        return self.problem


@asynccontextmanager
async def guarded_stdio(
    command: Sequence[str],
    env: dict[str, str],
    log: ServerLog,
    wire: Wire,
    startup_timeout_s: float,
    cwd: str | None = None,
) -> AsyncIterator[
    tuple[ObjectReceiveStream[SessionMessage | Exception], ObjectSendStream[SessionMessage]]
]:
    """The SDK client's streams to ``command`` started with ``env`` in the folder ``cwd``.
    Raises OSError when it cannot run."""
    process = await processes.spawn(command, env, log, cwd)
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    answered = anyio.Event()
    #: ids of the ``server/discover`` probes sent: only an answer in the new era opens with one
    probes: set[object] = set()

    async def read_output() -> None:
        lines = BufferedByteReceiveStream(process.stdout)  # type: ignore[arg-type]
        closed_output = False
        async with to_session:
            while True:
                try:
                    if not _may_be_a_message(await _next_line_begun(lines), wire):
                        return
                    line = await lines.receive_until(b"\n", MAX_MESSAGE_BYTES)
                except (anyio.EndOfStream, anyio.IncompleteRead):
                    wire.end("the server closed its output", status_follows=True)
                    closed_output = True
                    break
                except anyio.DelimiterNotFound:
                    head = lines.buffer[:EVIDENCE_BYTES]
                    wire.end(
                        f"the server wrote a line longer than {MAX_MESSAGE_BYTES} bytes "
                        f"(it begins {head!r})"
                    )
                    return
                except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                    return
                if not line.strip():
                    continue
                message = _message(line, wire)
                if message is None:
                    return
                if _opens(message, probes):
                    answered.set()
                elif not answered.is_set() and _echoed_opening(message):
                    wire.end(ECHOED_OPENING)
                    return
                try:
                    await to_session.send(SessionMessage(message))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
        if closed_output:  # the SDK has seen the end: how the process ended completes the account
            wire.exited(await _exit_of(process))

    async def write_input() -> None:
        async with from_session:
            try:
                async for outgoing in from_session:
                    await process.stdin.send(_lines([outgoing, *_ready(from_session)], probes))  # type: ignore[union-attr]
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                wire.end("the server closed its input", status_follows=True)
                await to_session.aclose()
                wire.exited(await _exit_of(process))

    async def await_first_answer() -> None:
        with anyio.move_on_after(startup_timeout_s):
            await answered.wait()
            return
        wire.end(
            f"no answer to initialize or server/discover within {startup_timeout_s} s "
            "(server.startup_timeout_s)"
        )
        await to_session.aclose()

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read_output)
            group.start_soon(write_input)
            group.start_soon(await_first_answer)
            try:
                yield from_server, to_server
            finally:
                group.cancel_scope.cancel()
    finally:
        await processes.stop(process)


def _ready(stream: MemoryObjectReceiveStream[SessionMessage]) -> list[SessionMessage]:
    """The messages ``stream``'s senders wait to hand over now: calls made side by side are
    written together, and the server reads them in one go rather than one wake-up each."""
    ready: list[SessionMessage] = []
    while True:
        try:
            ready.append(stream.receive_nowait())
        except anyio.WouldBlock:
            return ready


def _lines(outgoing: list[SessionMessage], probes: set[object]) -> bytes:
    """``outgoing`` as the lines of JSON text the server reads (noting the probes among them)."""
    texts = []
    for each in outgoing:
        if _is_probe(each.message):
            probes.add(each.message.id)  # type: ignore[union-attr]
        texts.append(each.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n")
    return "".join(texts).encode("utf-8")


#: What a command that copies its input to its output (``cat``) does with the opening request.
ECHOED_OPENING = (
    "the command sent its first request back instead of answering it (does it copy its input "
    "to its output?): is it an MCP server?"
)
#: The requests that open a connection, of each era.
_OPENING = ("initialize", "server/discover")


def _echoed_opening(message: object) -> bool:
    return isinstance(message, JSONRPCRequest) and message.method in _OPENING


def _opens(message: object, probes: set[object]) -> bool:
    """Whether ``message`` is an answer that opens the connection (see the module's doc)."""
    if not isinstance(message, JSONRPCResponse | JSONRPCError):
        return False
    if message.id not in probes:
        return True
    result = message.result if isinstance(message, JSONRPCResponse) else None
    versions = result.get("supportedVersions") if isinstance(result, dict) else None
    return isinstance(versions, list) and any(v in MODERN_PROTOCOL_VERSIONS for v in versions)


def _is_probe(message: object) -> bool:
    return isinstance(message, JSONRPCRequest) and message.method == "server/discover"


async def _next_line_begun(lines: BufferedByteReceiveStream) -> bytes:
    """What has come of the server's next line, once it holds more than blanks (it stays in
    ``lines``). Raises what reading raises."""
    while not (begun := lines.buffer.lstrip(BLANKS)):
        lines.feed_data(await lines.receive_stream.receive())
    return begun


def _may_be_a_message(begun: bytes, wire: Wire) -> bool:
    """Whether a line that begins so may be a JSON-RPC message (a JSON object); if not, the
    wire is ended with what arrived. Garbage is told from its first bytes, not once its line
    ends: a line that ends late, or never, would be told as no answer when the call's
    time-out came first."""
    if begun.startswith(b"{"):
        return True
    head = begun.partition(b"\n")[0]
    wire.end(
        f"the server wrote a line that is no JSON-RPC message (no JSON object): {evidence(head)}"
    )
    return False


def _message(line: bytes, wire: Wire) -> JSONRPCMessage | None:
    """The JSON-RPC message on ``line``, or None (and the wire ended with the reason) for a
    line the harness refuses."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        wire.end(f"the server wrote bytes that are not UTF-8 ({error.reason}): {evidence(line)}")
        return None
    try:
        return jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError as error:
        why = (str(error).splitlines()[1:2] or [str(error)])[0].strip()
        wire.end(f"the server wrote a line that is no JSON-RPC message ({why}): {evidence(line)}")
        return None


async def _exit_of(process: Process) -> str:
    """How the process ended, waiting a little for it to, and then for its stderr to reach the
    log (the account of the end shows the log's tail)."""
    with anyio.move_on_after(EXIT_WAIT_S):
        while process.returncode is None:
            await anyio.sleep(0.02)
    if process.returncode is not None:
        await processes.stderr_copied(process, EXIT_WAIT_S)
    return processes.exit_status(process.returncode)
