"""Start or reach the server of a target and open an MCP client session to it.

Placeholders of the descriptor (``{state_dir}``, ``{host_public_key_file}``, ``{port}``, and
``{env[NAME]}`` for an environment variable) are filled per launch; the server's stderr goes to
a log file whose tail becomes evidence.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client

from ..exceptions import StartupFailed
from .connection import IDENTITY_CLAIMS, Connection
from .descriptor import TargetDescriptor
from .raw_channel import ObjectChannel, RawChannel, over_http, over_stdio

#: Environment passed to a stdio server besides the descriptor's own ``env``.
_INHERITED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV", "PYTHONPATH")
STDERR_TAIL_LINES = 40
#: The identity that fills the binding's templates for the connection used before any check.
DISCOVERY_IDENTITY = {name: f"discovery-{name}" for name in IDENTITY_CLAIMS}
T = TypeVar("T")


def describe(error: BaseException) -> str:
    """A one-line account of an exception, unwrapping single-exception groups."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def tail(path: Path, lines: int = STDERR_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def matching_files(patterns: Iterable[str]) -> list[Path]:
    """The files (not folders) that the glob ``patterns`` match now; ``**`` spans folders."""
    found: set[Path] = set()
    for pattern in patterns:  # glob.glob, as Path.glob takes no absolute pattern
        found.update(Path(name) for name in glob.glob(pattern, recursive=True))  # noqa: PTH207
    return sorted(path for path in found if path.is_file())


@dataclass
class Workspace:
    """The per-run folder: server state, the host key file, and the server's stderr log."""

    root: Path
    host_public_key_file: Path

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def stderr_log(self) -> Path:
        return self.root / "server-stderr.log"


class _Environment(dict[str, str]):
    """``{env[NAME]}`` in a descriptor: the harness's environment variable NAME (say, where a
    server is installed); an unset one means the run cannot be made."""

    def __missing__(self, name: str) -> str:
        raise StartupFailed(f"the environment variable {name} is not set ({{env[{name}]}})")


class Target:
    """Something the harness can connect to, once or again after a crash."""

    name: str
    transport: str
    call_timeout_s: float = 10.0
    stderr_log: Path | None = None
    #: the files holding the server's state now (the descriptor's ``[state] files``), if known
    state_files: Callable[[], list[Path]] | None = None

    def connect(self) -> Any:  # an async context manager yielding an initialized Connection
        raise NotImplementedError


class LaunchedTarget(Target):
    """A target described by a descriptor: a stdio command, or an HTTP URL (maybe started)."""

    def __init__(self, descriptor: TargetDescriptor, workspace: Workspace) -> None:
        self.descriptor = descriptor
        self.workspace = workspace
        self.name = descriptor.name
        self.transport = descriptor.transport
        self.call_timeout_s = descriptor.call_timeout_s
        self.stderr_log = workspace.stderr_log
        self.port = free_port()
        workspace.state_dir.mkdir(parents=True, exist_ok=True)
        if descriptor.state_files:
            self.state_files = self._state_files

    def _state_files(self) -> list[Path]:
        return matching_files(self.fill(pattern) for pattern in self.descriptor.state_files)

    def fill(self, text: str, identity: dict[str, str] | None = None) -> str:
        values = {
            "state_dir": str(self.workspace.state_dir),
            "host_public_key_file": str(self.workspace.host_public_key_file),
            "port": str(self.port),
            "env": _Environment(os.environ),
            **(identity or DISCOVERY_IDENTITY),
        }
        try:
            return text.format(**values)
        except (KeyError, IndexError, ValueError) as error:
            raise StartupFailed(f"unknown placeholder in {text!r}: {error}") from None

    def _env(self, identity: dict[str, str] | None = None) -> dict[str, str]:
        inherited = {k: os.environ[k] for k in _INHERITED_ENV if k in os.environ}
        declared = {**self.descriptor.env}
        if self.descriptor.binding_mode == "process-env":
            declared |= self.descriptor.binding_env
        return {**inherited, **{k: self.fill(v, identity) for k, v in declared.items()}}

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[Connection]:
        """An initialized connection; with a per-identity binding, one client per identity."""
        per_identity = self.descriptor.binding_mode != "signed-meta"
        with self._started_http(self.fill(self.descriptor.url or "")):
            async with AsyncExitStack() as stack:
                default = await stack.enter_async_context(self._client(DISCOVERY_IDENTITY))
                group = await stack.enter_async_context(anyio.create_task_group())
                yield Connection(
                    default,
                    stack,
                    self._client if per_identity else None,
                    open_extra=self._client if per_identity else self._discovery_client,
                    open_raw=self._raw if per_identity else self._discovery_raw,
                    group=group,
                )

    def _discovery_client(self, identity: dict[str, str]) -> AbstractAsyncContextManager[Client]:
        """A client filled with the discovery identity: signed-meta binds none to a client."""
        return self._client(DISCOVERY_IDENTITY)

    def _discovery_raw(self, identity: dict[str, str]) -> AbstractAsyncContextManager[RawChannel]:
        """A raw channel filled with the discovery identity, as ``_discovery_client``."""
        return self._raw(DISCOVERY_IDENTITY)

    def _stdio_parameters(self, identity: dict[str, str]) -> StdioServerParameters:
        command = [self.fill(part, identity) for part in self.descriptor.command]
        return StdioServerParameters(command=command[0], args=command[1:], env=self._env(identity))

    def _headers(self, identity: dict[str, str]) -> dict[str, str] | None:
        """The http-headers binding's headers for ``identity`` (None for other bindings)."""
        if self.descriptor.binding_mode != "http-headers":
            return None
        return {k: self.fill(v, identity) for k, v in self.descriptor.binding_headers.items()}

    @asynccontextmanager
    async def _client(self, identity: dict[str, str]) -> AsyncIterator[Client]:
        timeout = self.descriptor.call_timeout_s
        if self.transport == "stdio":
            parameters = self._stdio_parameters(identity)
            with self.workspace.stderr_log.open("a", encoding="utf-8") as errlog:
                transport = stdio_client(parameters, errlog=errlog)
                async with _initialized(transport, timeout, self.stderr_log) as client:
                    yield client
            return
        url = self.fill(self.descriptor.url or "", identity)
        headers = self._headers(identity)
        server: Any = url
        if headers is not None:
            http = httpx2.AsyncClient(headers=headers)
            server = streamable_http_client(url, http_client=http)
        async with _initialized(server, timeout, self.stderr_log) as client:
            yield client

    def _raw(self, identity: dict[str, str]) -> AbstractAsyncContextManager[RawChannel]:
        """A raw channel for ``identity``: over stdio a server process of its own, started as
        the SDK's client starts one (same command, same environment), over HTTP a session of
        its own with the binding's headers. A failure to open it is StartupFailed."""
        timeout = self.descriptor.call_timeout_s
        if self.transport == "stdio":
            parameters = self._stdio_parameters(identity)
            command = [parameters.command, *parameters.args]
            env = get_default_environment() | (parameters.env or {})
            opened = over_stdio(command, env, self.workspace.stderr_log, timeout)
        else:
            url = self.fill(self.descriptor.url or "", identity)
            opened = over_http(url, self._headers(identity) or {}, timeout)
        return _started(opened, self.stderr_log)

    @contextlib.contextmanager
    def _started_http(self, url: str):  # type: ignore[no-untyped-def]
        if self.transport != "http" or not self.descriptor.command:
            yield
            return
        command = [self.fill(part) for part in self.descriptor.command]
        with self.workspace.stderr_log.open("a", encoding="utf-8") as errlog:
            try:
                process = subprocess.Popen(  # noqa: S603 - the descriptor's own command
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=errlog,
                    stderr=errlog,
                    env={**os.environ, **self._env()},
                )
            except OSError as error:
                raise StartupFailed(f"cannot run {shlex.join(command)}: {error}") from None
            try:
                _wait_for_port(url, process, self.descriptor.startup_timeout_s, self.stderr_log)
                yield
            finally:
                process.terminate()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=5)


def _wait_for_port(url: str, process: subprocess.Popen, timeout_s: float, log: Path | None) -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host, port = (
        parts.hostname or "127.0.0.1",
        parts.port or (443 if parts.scheme == "https" else 80),
    )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise StartupFailed(
                f"the server exited with code {process.returncode}", tail(log) if log else ""
            )
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise StartupFailed(f"nothing answered at {url} within {timeout_s} s", tail(log) if log else "")


def _initialized(
    server: Any, timeout_s: float, log: Path | None
) -> AbstractAsyncContextManager[Client]:
    """An initialized client; a failure to initialize (in ``timeout_s``) is StartupFailed."""
    return _started(Client(server, mode="legacy", read_timeout_seconds=timeout_s), log)


@asynccontextmanager
async def _started(opened: AbstractAsyncContextManager[T], log: Path | None) -> AsyncIterator[T]:
    """What ``opened`` opens; a failure to open it is StartupFailed with the tail of ``log``,
    a failure to close it is no concern of the checks."""
    try:
        value = await opened.__aenter__()
    except Exception as error:  # any failure to start is reported with evidence, not raised raw
        raise StartupFailed(describe(error), tail(log) if log else "") from None
    try:
        yield value
    finally:
        with contextlib.suppress(Exception):
            await opened.__aexit__(None, None, None)


class InProcessTarget(Target):
    """A server object in this process (fast tests, mutants): the SDK's in-memory transport.

    ``server_factory`` gives the server of each client; its servers share one service, so that
    a check's extra clients (``Connection.extra_client``) reach the same state."""

    def __init__(
        self, name: str, server_factory: Callable[[], Any], state_dir: Path | None = None
    ) -> None:
        self.name = name
        self.transport = "inprocess"
        self._factory = server_factory
        if state_dir is not None:
            pattern = f"{glob.escape(str(state_dir))}/**"
            self.state_files = lambda: matching_files([pattern])

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[Connection]:
        """A connection whose raw channel is the default client's ``ObjectChannel``."""
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(self._client())
            channel = ObjectChannel(client)
            yield Connection(
                client,
                stack,
                open_extra=self._client,
                open_raw=lambda identity: contextlib.nullcontext(channel),
            )

    def _client(self, identity: Any = None) -> AbstractAsyncContextManager[Client]:
        """A client of a server from the factory (the identity travels in ``_meta``)."""
        return _initialized(self._factory(), 10.0, None)
