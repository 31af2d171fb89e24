"""Start the reference server as the harness will: ``engram-reference serve`` in a subprocess.

- ``stdio_client``: an SDK client of a fresh stdio server process (one process per client);
- ``http_server``: one server on a free 127.0.0.1 port (announced on its stderr, with the file
  of the bearer token its clients send) for any number of ``http_client``s;
- ``RawStdio`` and ``RawHttp``: the same servers spoken to in bytes, for what an SDK client
  refuses to send (lone surrogates, invalid UTF-8, arguments that are not an object...).

Every wait is bounded by ``TIMEOUT_S``. A server's stderr goes to a log file the tests read.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client as sdk_stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

EXECUTABLE = Path(sys.executable).with_name("engram-reference")
TIMEOUT_S = 15.0
PROTOCOL_VERSION = "2025-11-25"
_ANNOUNCED = re.compile(r"serving streamable HTTP at (http://\S+/mcp)")
_TOKEN_FILE = re.compile(r"must send the bearer token in (\S+)")


def serve_command(state_dir: Path, key_file: Path, *options: str) -> list[str]:
    return [
        str(EXECUTABLE),
        "serve",
        "--state-dir",
        str(state_dir),
        "--host-public-key",
        str(key_file),
        *options,
    ]


@asynccontextmanager
async def stdio_client(
    state_dir: Path, key_file: Path, *options: str, log: Path, mode: str = "legacy"
) -> AsyncIterator[Client]:
    """An initialized client of a fresh ``engram-reference serve`` (stdio) process."""
    command, *args = serve_command(state_dir, key_file, *options)
    parameters = StdioServerParameters(command=command, args=args)
    with log.open("a", encoding="utf-8") as errlog:
        transport = sdk_stdio_client(parameters, errlog=errlog)
        async with Client(transport, mode=mode, read_timeout_seconds=TIMEOUT_S) as client:
            yield client


@dataclass(frozen=True)
class RunningServer:
    """An HTTP server process: where it serves, the token it requires (None: none), and where
    its stderr and stdout go."""

    url: str
    token: str | None
    log: Path
    stdout: Path

    @property
    def headers(self) -> dict[str, str]:
        """What a client sends with every request: the bearer token."""
        return {} if self.token is None else {"authorization": f"Bearer {self.token}"}


@asynccontextmanager
async def http_client(server: RunningServer, *, mode: str = "legacy") -> AsyncIterator[Client]:
    async with create_mcp_http_client(headers=server.headers) as http:
        transport = streamable_http_client(server.url, http_client=http)
        async with Client(transport, mode=mode, read_timeout_seconds=TIMEOUT_S) as client:
            yield client


@contextmanager
def http_server(
    state_dir: Path, key_file: Path, *options: str, log: Path
) -> Iterator[RunningServer]:
    """A running ``engram-reference serve --http --port 0``, stopped on exit."""
    command = serve_command(state_dir, key_file, *options, "--http", "--port", "0")
    stdout = log.with_suffix(".stdout")
    with log.open("a", encoding="utf-8") as errlog, stdout.open("ab") as out:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=errlog)
    try:
        yield announced(process, log, stdout)
    finally:
        _stop(process)


def announced(process: subprocess.Popen[bytes], log: Path, stdout: Path) -> RunningServer:
    """The server ``process`` announces in ``log``: its URL, and its token (from the file it
    names) unless it runs with ``--no-auth``."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8")
        url, token_file = _ANNOUNCED.search(text), _TOKEN_FILE.search(text)
        if url and (token_file or "no token required" in text):
            token = Path(token_file.group(1)).read_text().strip() if token_file else None
            return RunningServer(url.group(1), token, log, stdout)
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}: {text}")
        time.sleep(0.05)
    raise TimeoutError(f"the server announced no URL within {TIMEOUT_S} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(TIMEOUT_S)


def request(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return json.dumps(message).encode("utf-8")


INITIALIZE = {
    "protocolVersion": PROTOCOL_VERSION,
    "capabilities": {},
    "clientInfo": {"name": "raw-test-client", "version": "0"},
}
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


class RawStdio:
    """A stdio server process driven line by line; ``exchange`` sends one and reads one."""

    def __init__(self, command: list[str], log: Path) -> None:
        with log.open("a", encoding="utf-8") as errlog:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog
            )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.exchange(request(0, "initialize", INITIALIZE))
        self.send(INITIALIZED)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        return json.loads(self._lines.get(timeout=TIMEOUT_S))

    def exchange(self, line: bytes) -> dict[str, Any]:
        self.send(line)
        return self.receive()

    def close(self) -> int:
        """Close stdin (the end of the session) and return the exit code."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        try:
            return self.process.wait(TIMEOUT_S)
        finally:
            self._reader.join(TIMEOUT_S)
            self.process.stdout.close()


class RawHttp:
    """A streamable HTTP session driven with raw POST bodies."""

    def __init__(self, server: RunningServer) -> None:
        self.url = url = server.url
        self.http = httpx2.Client(timeout=TIMEOUT_S)
        self.headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            **server.headers,
        }
        opening = request(0, "initialize", INITIALIZE)
        opened = self.http.post(url, content=opening, headers=self.headers)
        opened.raise_for_status()
        self.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = PROTOCOL_VERSION
        self.http.post(url, content=INITIALIZED, headers=self.headers).raise_for_status()

    def post(self, body: bytes) -> httpx2.Response:
        return self.http.post(self.url, content=body, headers=self.headers)

    def exchange(self, body: bytes) -> dict[str, Any]:
        """The JSON-RPC message answering ``body`` (from an SSE stream or a JSON body)."""
        response = self.post(body)
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
            return json.loads(next(item for item in data if item.strip()))
        return response.json()

    def close(self) -> None:
        self.http.close()
