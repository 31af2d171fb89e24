"""Streamable HTTP before any session (issue 12, finding 9): what is refused unread, the body's
bounds, slow clients, the session cap and idle expiry, disconnects.

"Unread" is shown by sending only a request's head with a ``Content-Length`` and no body: the
answer comes at once, where a server waiting for the body would answer 408 after its read
timeout. Every wait is bounded by ``TIMEOUT_S``; nothing is timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from engram_conformance.reference_impl.streamable_http import MAX_BODY_BYTES, Origins, bind

from .servers import INITIALIZE, TIMEOUT_S, RawHttp, RunningServer, http_server, request

JSON_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
TOOLS_LIST = request(1, "tools/list", {})


def _address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def _raw_exchange(server: RunningServer, head: bytes, *, body: bytes = b"") -> bytes:
    """What the server writes back, until it closes, to ``head`` (and ``body``)."""
    with socket.create_connection(_address(server.url), timeout=TIMEOUT_S) as sock:
        sock.sendall(head + body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received


def _head(
    server: RunningServer, *lines: str, host: str | None = None, token: str | None = ""
) -> bytes:
    """A POST's head: ``host`` (default: the server's address), the bearer ``token`` (default:
    the server's; None: no Authorization header) and ``lines``; the server closes the
    connection once it has answered."""
    name, port = _address(server.url)
    token = server.token if token == "" else token
    defaults = [
        f"Host: {host or f'{name}:{port}'}",
        "Accept: application/json, text/event-stream",
        "Connection: close",
        *([] if token is None else [f"Authorization: Bearer {token}"]),
    ]
    return ("\r\n".join(["POST /mcp HTTP/1.1", *defaults, *lines]) + "\r\n\r\n").encode()


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, host_key_file: Path
) -> Iterator[RunningServer]:
    folder = tmp_path_factory.mktemp("http-gate")
    options = ("--read-timeout-s", "1", "--allow-host", "memory.example")
    with http_server(folder / "state", host_key_file, *options, log=folder / "server.log") as s:
        yield s


def _serves(server: RunningServer) -> bool:
    raw = RawHttp(server)
    try:
        return "tools" in raw.exchange(TOOLS_LIST)["result"]
    finally:
        raw.close()


JSON = "Content-Type: application/json"
LONG = "Content-Length: 65536"


@pytest.mark.parametrize(
    ("lines", "host_header", "status"),
    [
        ([JSON, LONG], "evil.example", 421),
        ([JSON, LONG], "evil.example:80", 421),
        ([JSON, LONG, "Origin: http://evil.example"], None, 403),
        ([JSON, LONG, "Origin: null"], None, 403),
        (["Content-Type: text/plain", LONG], None, 415),
        ([JSON, f"Content-Length: {MAX_BODY_BYTES + 1}"], None, 413),
    ],
    ids=[
        "another host",
        "another host's port",
        "another origin",
        "an opaque origin",
        "not JSON",
        "too long",
    ],
)
def test_refused_before_the_body_is_read(
    server: RunningServer, lines: list[str], host_header: str | None, status: int
) -> None:
    head = _head(server, *lines, host=host_header)
    assert _status(_raw_exchange(server, head)) == status
    assert _serves(server)


@pytest.mark.parametrize(
    "origin",
    [None, "http://127.0.0.1:{port}", "http://localhost:{port}", "http://memory.example:{port}"],
)
def test_same_host_origins_and_named_hosts_are_served(
    server: RunningServer, origin: str | None
) -> None:
    port = _address(server.url)[1]
    headers = {**JSON_HEADERS, **server.headers}
    if origin is not None:
        headers["origin"] = origin.format(port=port)
    opened = httpx2.post(server.url, content=request(0, "initialize", INITIALIZE), headers=headers)
    assert opened.status_code == 200
    named = httpx2.post(
        server.url,
        content=request(0, "initialize", INITIALIZE),
        headers={**headers, "host": f"memory.example:{port}"},
    )
    assert named.status_code == 200


def test_a_chunked_body_is_cut_at_the_limit(server: RunningServer) -> None:
    """One byte more than the limit, in chunks and never ended: refused all the same."""
    chunk = b"[" * (1 << 20)
    chunks = [chunk] * (MAX_BODY_BYTES // len(chunk)) + [b"["]
    body = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in chunks)
    head = _head(server, JSON, "Transfer-Encoding: chunked")
    assert _status(_raw_exchange(server, head, body=body)) == 413
    assert _serves(server)


def test_a_client_that_sends_too_slowly_is_cut_off(server: RunningServer) -> None:
    slow_body = _head(server, JSON, "Content-Length: 100")
    assert _status(_raw_exchange(server, slow_body, body=b'{"jsonrpc"')) == 408
    assert _raw_exchange(server, b"POST /mcp HTTP/1.1\r\nHost: 127") == b""  # closed unanswered
    assert _serves(server)


def test_idle_connections_give_way_oldest_first(tmp_path: Path, host_key_file: Path) -> None:
    """Issue 23: a thousand connections opened and left idle ran the server out of file
    descriptors (a new client waited 20 s). Past the cap, the longest-waiting one is closed."""
    options = ("--max-waiting-connections", "4", "--read-timeout-s", "60")
    log = tmp_path / "server.log"
    with http_server(tmp_path / "state", host_key_file, *options, log=log) as server:
        idle = [
            socket.create_connection(_address(server.url), timeout=TIMEOUT_S) for _ in range(10)
        ]
        try:
            assert [sock.recv(1) for sock in idle[:6]] == [b""] * 6  # closed, oldest first
            assert _serves(server)
            newest = idle[-1]  # still open: it answers a request
            newest.sendall(_head(server, JSON, "Content-Length: 1") + b"x")
            assert newest.recv(65536).startswith(b"HTTP/1.1 400 ")
            assert "closed the longest-waiting idle connection" in log.read_text()
        finally:
            for sock in idle:
                sock.close()


def test_a_disconnect_is_one_line_in_the_log(server: RunningServer) -> None:
    head = _head(server, JSON, "Content-Length: 100")
    with socket.create_connection(_address(server.url), timeout=TIMEOUT_S) as sock:
        sock.sendall(head + b'{"jsonrpc"')
    assert _serves(server)
    deadline = time.monotonic() + TIMEOUT_S
    while "disconnected" not in server.log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = server.log.read_text()
    assert "a client disconnected before it sent its whole request" in log
    assert "Traceback" not in log


def test_dns_rebinding_protection_holds_on_any_address(tmp_path: Path, host_key_file: Path) -> None:
    options = ("--host", "127.0.0.2")
    with http_server(tmp_path / "state", host_key_file, *options, log=tmp_path / "log") as s:
        rebound = _head(s, JSON, LONG, host="evil.example")
        assert _status(_raw_exchange(s, rebound)) == 421
        assert _serves(s)


def test_the_hosts_served() -> None:
    assert Origins.of(["0.0.0.0", "::"], 8080).hosts == {
        "localhost:8080",
        "127.0.0.1:8080",
        "[::1]:8080",
    }
    served = Origins.of(["::1", "memory.example"], 80).hosts
    assert {"[::1]:80", "[::1]", "memory.example", "memory.example:80"} <= served


def _initialize(server: RunningServer, http: httpx2.Client | None = None) -> httpx2.Response:
    """A new session's opening request (from ``http``'s address, by default 127.0.0.1)."""
    headers = {**JSON_HEADERS, **server.headers}
    opening = request(0, "initialize", INITIALIZE)
    return (http or httpx2).post(server.url, content=opening, headers=headers)


def _in(server: RunningServer, opened: httpx2.Response) -> dict[str, str]:
    """The headers of a request in the session ``opened`` opened."""
    return {**JSON_HEADERS, **server.headers, "mcp-session-id": opened.headers["mcp-session-id"]}


def _alive(server: RunningServer, opened: httpx2.Response) -> bool:
    status = httpx2.post(server.url, content=TOOLS_LIST, headers=_in(server, opened)).status_code
    assert status in (200, 404)
    return status == 200


def test_the_least_recently_used_idle_session_gives_way(
    tmp_path: Path, host_key_file: Path
) -> None:
    """Issue 23: sessions opened and left alone no longer lock a new client out."""
    options = ("--max-sessions", "8", "--max-client-sessions", "8")
    with http_server(tmp_path / "state", host_key_file, *options, log=tmp_path / "log") as s:
        opened = [_initialize(s) for _ in range(20)]
        assert {response.status_code for response in opened} == {200}
        assert [_alive(s, response) for response in opened] == [False] * 12 + [True] * 8


def test_open_event_streams_hold_no_session(tmp_path: Path, host_key_file: Path) -> None:
    """Attack round 4: sessions whose event streams stay open locked every new client out.
    An open stream keeps no session in use: at the cap, the least recently used session gives
    way (its stream ends with it)."""
    options = ("--max-sessions", "2")
    with http_server(tmp_path / "state", host_key_file, *options, log=tmp_path / "log") as s:
        streams = [_initialize(s), _initialize(s)]
        with httpx2.Client(timeout=TIMEOUT_S) as http, contextlib.ExitStack() as open_streams:
            for opened in streams:
                headers = {**_in(s, opened), "accept": "text/event-stream"}
                stream = open_streams.enter_context(http.stream("GET", s.url, headers=headers))
                assert stream.status_code == 200
            newcomer = _initialize(s)
            assert newcomer.status_code == 200
            assert [_alive(s, opened) for opened in streams] == [False, True]
            assert _alive(s, newcomer)


def test_one_client_cannot_take_every_session(tmp_path: Path, host_key_file: Path) -> None:
    """Beyond its cap, a client's own least recently used idle session gives way, never
    another client's (a client is an address: 127.0.0.2 here is another one)."""
    options = ("--max-sessions", "8", "--max-client-sessions", "3")
    with http_server(tmp_path / "state", host_key_file, *options, log=tmp_path / "log") as s:
        other = httpx2.Client(transport=httpx2.HTTPTransport(local_address="127.0.0.2"))
        with other:
            theirs = _initialize(s, other)
        mine = [_initialize(s) for _ in range(6)]
        assert _alive(s, theirs)
        assert [_alive(s, response) for response in mine] == [False] * 3 + [True] * 3


def test_unused_and_idle_sessions_expire(tmp_path: Path, host_key_file: Path) -> None:
    """A session never used after it opened expires after --session-unused-s, an idle one
    after --session-idle-s; each answers 404 from then on. The idle time is ample beside the
    pauses between uses (0.2 s, and what a loaded machine adds)."""
    idle_s = 4
    options = ("--session-unused-s", "1", "--session-idle-s", str(idle_s))
    with http_server(tmp_path / "state", host_key_file, *options, log=tmp_path / "log") as s:
        unused, used = _initialize(s), _initialize(s)
        started = time.monotonic()
        while time.monotonic() - started < 1.5:  # used all along: never idle for idle_s
            assert _alive(s, used)
            time.sleep(0.2)
        assert not _alive(s, unused)
        time.sleep(idle_s + 0.5)
        assert not _alive(s, used)


REALM = 'Bearer realm="engram-reference"'


@pytest.mark.parametrize(
    ("token", "challenge"),
    [(None, REALM), ("A" * 43, f'{REALM}, error="invalid_token"')],
    ids=["no token", "another token"],
)
def test_a_request_without_the_token_is_refused_unread(
    server: RunningServer, token: str | None, challenge: str
) -> None:
    answer = _raw_exchange(server, _head(server, JSON, LONG, token=token))
    assert _status(answer) == 401
    head = answer.partition(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")[1:]
    headers = dict(line.split(": ", 1) for line in head)
    assert {name.lower(): value for name, value in headers.items()}["www-authenticate"] == challenge
    basic = httpx2.get(server.url, headers={"authorization": f"Basic {server.token}"})
    assert basic.status_code == 401
    assert _serves(server)


def test_the_token_is_made_private_in_the_state_folder(server: RunningServer) -> None:
    [named] = re.findall(r"must send the bearer token in (\S+)", server.log.read_text())
    token_file = Path(named)
    assert token_file.name == "http.token" and token_file.parent.name == "state"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert token_file.read_text().strip() == server.token


def test_a_token_given_by_file_and_no_token_at_all(tmp_path: Path, host_key_file: Path) -> None:
    token_file = tmp_path / "given.token"
    options = ("--token-file", str(token_file))
    with http_server(tmp_path / "state", host_key_file, *options, log=tmp_path / "log") as s:
        assert s.token == token_file.read_text().strip()
        assert _serves(s)
    with http_server(tmp_path / "state", host_key_file, *options, log=tmp_path / "again") as s:
        assert s.token == token_file.read_text().strip()  # kept, not made again
    options = ("--no-auth",)
    with http_server(tmp_path / "state", host_key_file, *options, log=tmp_path / "open") as s:
        assert s.token is None and _serves(s)
        assert "no token required (--no-auth)" in s.log.read_text()


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_accepted_connections_answer_without_waiting_for_acknowledgements(host: str) -> None:
    """The sockets a bound socket accepts have Nagle's algorithm off, as asyncio sets it on TCP
    sockets it knows for TCP: an answer's body is not held back until the client acknowledges
    its head (40 ms a request on a kept-alive connection, issue 25)."""
    try:
        listening = bind(host, 0)
    except OSError:
        pytest.skip(f"{host} cannot be bound here")

    async def accepted_nodelay() -> int:
        accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Accepting(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        server = await asyncio.get_running_loop().create_server(Accepting, sock=listening)
        async with server:
            _, writer = await asyncio.open_connection(*listening.getsockname()[:2])
            try:
                return await asyncio.wait_for(accepted, TIMEOUT_S)
            finally:
                writer.close()

    assert asyncio.run(accepted_nodelay()) == 1
