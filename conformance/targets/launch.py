"""Start or reach the server of a target and open an MCP client session to it.

Placeholders of the descriptor (``{state_dir}``, ``{host_public_key_file}``, ``{port}``,
``{env[NAME]}`` for an environment variable and ``{file[PATH]}`` for the text of a file) are
filled per launch; the server's stderr goes to a log file whose tail becomes evidence.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION

from ..exceptions import EraNotSpoken, StartupFailed
from . import eras, processes
from .connection import Connection
from .descriptor import TargetDescriptor
from .identities import IN_THE_CALL, Identities
from .placeholders import UnknownPlaceholder, filled
from .placeholders import names as placeholder_names
from .raw_channel import ObjectChannel, RawChannel, over_http, over_stdio
from .server_log import ServerLog, tail
from .stdio_transport import Wire, guarded_stdio

#: the placeholder naming the file that holds the public key of the host the harness plays
KEY_FILE = "host_public_key_file"
#: Environment passed to a stdio server besides the descriptor's own ``env``.
_INHERITED_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "VIRTUAL_ENV", "PYTHONPATH")
T = TypeVar("T")


#: The longest account of an exception ``describe`` gives.
DESCRIBED_CHARS = 400


def describe(error: BaseException) -> str:
    """A one-line account of an exception; an exception group is told by its distinct
    members, not as "(2 sub-exceptions)"."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(dict.fromkeys(describe(member) for member in error.exceptions))
    text = " / ".join(line.strip() for line in str(error).splitlines() if line.strip())
    told = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return told if len(told) <= DESCRIBED_CHARS else f"{told[:DESCRIBED_CHARS]}..."


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def matching_files(patterns: Iterable[str]) -> list[Path]:
    """The files (not folders) that the glob ``patterns`` match now; ``**`` spans folders."""
    found: set[Path] = set()
    for pattern in patterns:  # glob.glob, as Path.glob takes no absolute pattern
        found.update(Path(name) for name in glob.glob(pattern, recursive=True))  # noqa: PTH207
    return sorted(path for path in found if path.is_file())


@dataclass
class Workspace:
    """The per-run folder: server state, the host key file (None: the contract's host has no
    key), and the server's stderr log."""

    root: Path
    host_public_key_file: Path | None

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def stderr_log(self) -> Path:
        return self.root / "server-stderr.log"

    @property
    def work_dir(self) -> Path:
        """An empty folder of the run, for a server to start in (``{work_dir}``)."""
        return self.root / "work"


class _Environment(dict[str, str]):
    """``{env[NAME]}`` in a descriptor: the harness's environment variable NAME (say, where a
    server is installed); an unset one means the run cannot be made."""

    def __missing__(self, name: str) -> str:
        raise StartupFailed(f"the environment variable {name} is not set ({{env[{name}]}})")


class _Files(dict[str, str]):
    """``{file[PATH]}`` in a descriptor: the text of the file PATH without the whitespace around
    it, a relative PATH being in the run's state folder (where a server the harness starts
    keeps, say, the token its clients must send); a file that cannot be read means the run
    cannot be made."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def __missing__(self, name: str) -> str:
        path = self.folder / str(name)
        try:
            return path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            raise StartupFailed(f"cannot read {path} ({{file[{name}]}}): {error}") from None


class Target:
    """Something the harness can connect to, once or again after a crash."""

    name: str
    transport: str
    call_timeout_s: float = 10.0
    #: the era the run asked for (``eras.AUTO`` or one of ``eras.ERAS``)
    requested_era: str = eras.AUTO
    #: what the server agreed to on the first connection, which later clients speak
    negotiated: eras.Negotiated | None = None
    stderr_log: Path | None = None
    #: the files holding the server's state now (the descriptor's ``[state] files``), if known
    state_files: Callable[[], list[Path]] | None = None
    #: whether closing its connections stops every server process of the target (the harness
    #: started them), so that what a server leaves behind can be judged after a clean stop
    stops_its_servers: bool = False

    def connect(self) -> Any:  # an async context manager yielding an initialized Connection
        raise NotImplementedError

    async def explain(self, client: Any) -> str | None:
        """Why ``client``'s connection ended, when its transport knows more than the SDK."""
        return None


class LaunchedTarget(Target):
    """A target described by a descriptor: a stdio command, or an HTTP URL (maybe started),
    reached by each identity as the run's contract says (``identities``)."""

    def __init__(
        self,
        descriptor: TargetDescriptor,
        workspace: Workspace,
        identities: Identities = IN_THE_CALL,
    ) -> None:
        self.descriptor = descriptor
        self.workspace = workspace
        self.identities = identities
        self.name = descriptor.name
        self.transport = descriptor.transport
        self.call_timeout_s = descriptor.call_timeout_s
        self.stderr_log = workspace.stderr_log
        self.requested_era = descriptor.era
        self.server_log = ServerLog(workspace.stderr_log)
        self.port = free_port()
        #: the wire of each open stdio client, by the client's id (``explain``)
        self._wires: dict[int, Wire] = {}
        #: the HTTP server process the harness started, if it started one
        self._http_process: subprocess.Popen[bytes] | None = None
        self.stops_its_servers = descriptor.transport == "stdio" or bool(descriptor.command)
        workspace.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)  # state is private
        if descriptor.state_files:
            self.state_files = self._state_files

    def _state_files(self) -> list[Path]:
        return matching_files(self.fill(pattern) for pattern in self.descriptor.state_files)

    def _values(self, identity: dict[str, str] | None = None) -> dict[str, Any]:
        """What each placeholder stands for in this launch (``identity``'s parts: the
        discovery identity's when None)."""
        key = self.workspace.host_public_key_file
        return {
            "state_dir": str(self.workspace.state_dir),
            "work_dir": str(self.workspace.work_dir),
            **({KEY_FILE: str(key)} if key is not None else {}),
            "port": str(self.port),
            "env": _Environment(os.environ),
            "file": _Files(self.workspace.state_dir),
            **(identity or self.identities.discovery),
        }

    def placeholders(self) -> set[str]:
        """The names of the placeholders the descriptor's templates use, those that carry
        identities included."""
        descriptor, identities = self.descriptor, self.identities
        templates = [
            *descriptor.command,
            descriptor.url or "",
            descriptor.cwd or "",
            *descriptor.env.values(),
            *descriptor.headers.values(),
            *identities.env.values(),
            *identities.headers.values(),
            *descriptor.state_files,
        ]
        return {name for template in templates for name in placeholder_names(template)}

    def unfilled(self) -> set[str]:
        """The placeholders this launch has no value for: a key file its host writes none
        of, an identity's part its contract does not name (``fill`` would refuse them)."""
        return self.placeholders() - set(self._values())

    def fill(self, text: str, identity: dict[str, str] | None = None) -> str:
        values = self._values(identity)
        try:
            return filled(text, values)
        except UnknownPlaceholder as error:
            known = ", ".join(f"{{{name}}}" for name in (*values, "env[NAME]", "file[NAME]"))
            known = known.replace("{env}, ", "").replace("{file}, ", "")
            raise StartupFailed(
                f"unknown placeholder in {text!r}: {error}; the placeholders are {known}"
            ) from None

    def _env(self, identity: dict[str, str] | None = None) -> dict[str, str]:
        inherited = {k: os.environ[k] for k in _INHERITED_ENV if k in os.environ}
        declared = {**self.descriptor.env}
        declared |= self.identities.env
        return {**inherited, **{k: self.fill(v, identity) for k, v in declared.items()}}

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[Connection]:
        """An initialized connection; one client per identity when identities travel outside
        the calls (``Identities.per_client``)."""
        per_identity = self.identities.per_client
        discovery = self.identities.discovery
        with self._started_http(self.fill(self.descriptor.url or "")):
            async with AsyncExitStack() as stack:
                default = await stack.enter_async_context(self._client(discovery))
                group = await stack.enter_async_context(anyio.create_task_group())
                yield Connection(
                    default,
                    stack,
                    self._client if per_identity else None,
                    open_extra=self._client if per_identity else self._discovery_client,
                    open_raw=self._raw if per_identity else self._discovery_raw,
                    group=group,
                    explain=self.explain,
                    extra_is_a_process=self.transport == "stdio",
                    identities=self.identities,
                )

    async def explain(self, client: Any) -> str | None:
        wire = self._wires.get(id(client))
        if wire is not None:
            return await wire.account()
        started = self._http_process
        if started is not None and started.poll() is not None:
            return f"the server process {processes.exit_status(started.returncode)}"
        return None

    def _discovery_client(self, identity: dict[str, str]) -> AbstractAsyncContextManager[Client]:
        """A client filled with the discovery identity: calls carry their identity themselves,
        so no client is bound to one."""
        return self._client(self.identities.discovery)

    def _discovery_raw(self, identity: dict[str, str]) -> AbstractAsyncContextManager[RawChannel]:
        """A raw channel filled with the discovery identity, as ``_discovery_client``."""
        return self._raw(self.identities.discovery)

    def _working_folder(self) -> str | None:
        """The folder the server starts in: the descriptor's ``cwd`` filled in (the run's
        ``{work_dir}`` made, empty, on first use), None for the harness's own."""
        if self.descriptor.cwd is None:
            return None
        folder = Path(self.fill(self.descriptor.cwd))
        if folder == self.workspace.work_dir:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not folder.is_dir():
            raise StartupFailed(f"the server's working folder {folder} (server.cwd) is no folder")
        return str(folder)

    def _stdio_command(self, identity: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """The command line and the environment of a stdio server process for ``identity``."""
        command = [self.fill(part, identity) for part in self.descriptor.command]
        return command, get_default_environment() | self._env(identity)

    def _headers(self, identity: dict[str, str]) -> dict[str, str]:
        """The headers of every HTTP request: the server's (``[server] headers``) and those
        that carry ``identity``, if the contract's identities travel in headers."""
        declared = dict(self.descriptor.headers)
        declared |= self.identities.headers
        return {k: self.fill(v, identity) for k, v in declared.items()}

    @asynccontextmanager
    async def _client(self, identity: dict[str, str]) -> AsyncIterator[Client]:
        if self.transport == "stdio":
            command, env = self._stdio_command(identity)
            wire = Wire()
            startup = self.descriptor.startup_timeout_s
            cwd = self._working_folder()
            transport = guarded_stdio(command, env, self.server_log, wire, startup, cwd)
            # the transport bounds the opening request (startup_timeout_s), the session each call
            async with self._opened(transport, None, wire) as client:
                self._wires[id(client)] = wire
                try:
                    yield client
                finally:
                    del self._wires[id(client)]
            return
        url = self.fill(self.descriptor.url or "", identity)
        headers = self._headers(identity)
        timeout = max(self.descriptor.call_timeout_s, self.descriptor.startup_timeout_s)
        async with AsyncExitStack() as stack:
            server: Any = url
            if headers:
                http = await stack.enter_async_context(create_mcp_http_client(headers=headers))
                server = streamable_http_client(url, http_client=http)
            reached = None if self.descriptor.command else url  # a server already running there
            async with self._opened(server, timeout, reached=reached) as client:
                yield client

    def _opened(
        self,
        server: Any,
        timeout_s: float | None,
        wire: Wire | None = None,
        *,
        reached: str | None = None,
    ) -> AbstractAsyncContextManager[Client]:
        """A client of ``server`` in the run's era (``_initialized``)."""
        return _initialized(server, timeout_s, self.stderr_log, wire, reached=reached, target=self)

    def _raw(self, identity: dict[str, str]) -> AbstractAsyncContextManager[RawChannel]:
        """A raw channel for ``identity`` in the era of the run: over stdio a server process
        of its own, started as the SDK's client starts one (same command, same environment),
        over HTTP a session of its own (handshake era) with the identity's headers. A failure
        to open it is StartupFailed."""
        timeout = max(self.descriptor.call_timeout_s, self.descriptor.startup_timeout_s)
        version = self.negotiated.protocol_version if self.negotiated else None
        if self.transport == "stdio":
            command, env = self._stdio_command(identity)
            startup = self.descriptor.startup_timeout_s
            cwd = self._working_folder()
            opened = over_stdio(command, env, self.server_log, startup, cwd, version)
        else:
            url = self.fill(self.descriptor.url or "", identity)
            opened = over_http(url, self._headers(identity), timeout, version)
        return _started(opened, self.stderr_log)

    @contextlib.contextmanager
    def _started_http(self, url: str) -> Iterator[None]:
        if self.transport != "http" or not self.descriptor.command:
            yield
            return
        command = [self.fill(part) for part in self.descriptor.command]
        try:
            env = {**os.environ, **self._env()}
            cwd = self._working_folder()
            process = processes.spawn_detached(command, env, self.server_log, cwd)
        except OSError as error:
            raise StartupFailed(f"cannot run {shlex.join(command)}: {error}") from None
        self._http_process = process
        try:
            _wait_for_port(url, process, self.descriptor.startup_timeout_s, self.stderr_log)
            yield
        finally:
            processes.stop_detached(process)
            self._http_process = None


def _wait_for_port(url: str, process: Any, timeout_s: float, log: Path | None) -> None:
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
                f"the server {processes.exit_status(process.returncode)}",
                tail(log) if log else "",
            )
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise StartupFailed(
        f"nothing answered at {url} within {timeout_s} s (server.startup_timeout_s)",
        tail(log) if log else "",
    )


@asynccontextmanager
async def _initialized(
    server: Any,
    timeout_s: float | None,
    log: Path | None,
    wire: Wire | None = None,
    *,
    reached: str | None = None,
    target: Target,
) -> AsyncIterator[Client]:
    """A client that has opened its connection in ``target``'s protocol era: the first of a
    run negotiates the era asked for (``eras.client_mode``) and settles ``target.negotiated``,
    the later ones ask for the era it settled. A failure to open (in ``timeout_s``, the SDK's read
    time-out of every request), or a server that does not speak the era asked for, is
    StartupFailed. ``reached``: the URL of a server the harness did not start, whose failure
    is told as one of reaching it. The SDK's response cache is off: every request the checks
    make must reach the server."""
    settled = target.negotiated
    wanted = target.requested_era if settled is None else settled.era
    client = Client(
        server, mode=eras.client_mode(wanted), read_timeout_seconds=timeout_s, cache=None
    )
    async with _started(client, log, wire, reached=reached) as opened:
        agreed = _agreed(opened, wanted, log)
        if settled is None:
            target.negotiated = agreed
        yield opened


def _agreed(client: Client, wanted: str, log: Path | None) -> eras.Negotiated:
    """What ``client``'s server agreed to; StartupFailed when it is not the era wanted."""
    agreed = eras.Negotiated(client.protocol_version)
    if wanted in eras.ERAS and agreed.era != wanted:
        raise EraNotSpoken(
            f"the server does not speak the MCP era {wanted} (server.era, --era): "
            f"it agreed to {agreed.protocol_version} only",
            tail(log) if log else "",
        )
    return agreed


@asynccontextmanager
async def _started(
    opened: AbstractAsyncContextManager[T],
    log: Path | None,
    wire: Wire | None = None,
    *,
    reached: str | None = None,
) -> AsyncIterator[T]:
    """What ``opened`` opens; a failure to open it is StartupFailed with the tail of ``log``
    (and what the ``wire`` saw, if it saw why), a failure to close it is no concern of the
    checks. ``reached``: the URL of a server the harness did not start (see ``_initialized``)."""
    try:
        value = await opened.__aenter__()
    except Exception as error:  # any failure to start is reported with evidence, not raised raw
        problem = (await wire.account() if wire else None) or describe(error)
        if reached is not None and _refused(error):
            problem = f"nothing answers at {reached}: is the server running?"
        supported = _versions_offered(error)
        if supported is not None:
            problem = (
                f"the server does not speak the MCP era asked for (server.era, --era): {problem};"
                f" it speaks {', '.join(map(str, supported)) or 'no version it names'}"
            )
            raise EraNotSpoken(problem, tail(log) if log else "") from None
        raise StartupFailed(problem, tail(log) if log else "", started=reached is None) from None
    try:
        yield value
    finally:
        with contextlib.suppress(Exception):
            await opened.__aexit__(None, None, None)


def _versions_offered(error: BaseException) -> list[Any] | None:
    """The versions a server named when it refused the one asked for (-32022), else None."""
    for current in _within(error):
        if isinstance(current, MCPError) and current.code == UNSUPPORTED_PROTOCOL_VERSION:
            data = current.error.data
            supported = data.get("supported") if isinstance(data, dict) else None
            return supported if isinstance(supported, list) else []
    return None


def _refused(error: BaseException) -> bool:
    """Whether ``error`` (or an error it groups or was raised from) is a refused connection."""
    return any(isinstance(e, httpx2.ConnectError | ConnectionRefusedError) for e in _within(error))


def _within(error: BaseException) -> Iterator[BaseException]:
    """``error``, the errors it groups and those it was raised from, each once."""
    found, seen = [error], set()
    while found:
        current = found.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        found += list(getattr(current, "exceptions", ())) + [
            cause for cause in (current.__cause__, current.__context__) if cause is not None
        ]


class InProcessTarget(Target):
    """A server object in this process (fast tests, mutants): the SDK's in-memory transport.

    ``server_factory`` gives the server of each client; its servers share one service, so that
    a check's extra clients (``Connection.extra_client``) reach the same state.

    Its era is the handshake era unless asked: in process the SDK serves 2026-07-28 by a
    direct call, with no transport, where a call the harness stops waiting for still waits
    for the server's handler to end (a slow call is not cut at its time-out), so the new era
    in process would test less than the handshake era does there."""

    def __init__(
        self,
        name: str,
        server_factory: Callable[[], Any],
        state_dir: Path | None = None,
        era: str = eras.HANDSHAKE,
    ) -> None:
        self.name = name
        self.transport = "inprocess"
        self.requested_era = era
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
        return _initialized(self._factory(), 10.0, None, target=self)
