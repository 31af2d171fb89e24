"""Fixtures of the reference server's tests: the host, and servers started as subprocesses."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
from mcp import Client

from .host import Host
from .servers import RunningServer, http_server, stdio_client


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def host() -> Host:
    """The host of every test session: one Ed25519 key pair, the wall clock."""
    return Host()


@pytest.fixture(scope="session")
def host_key_file(host: Host, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return host.write_public_key(tmp_path_factory.mktemp("host") / "host.pem")


@pytest.fixture
def reference_stdio(
    tmp_path: Path, host_key_file: Path
) -> Callable[..., AbstractAsyncContextManager[Client]]:
    """``async with reference_stdio(*serve_options, mode=...) as client``: a fresh process on
    this test's state folder; its stderr is ``tmp_path / "server.log"``."""

    def start(*options: str, mode: str = "legacy") -> AbstractAsyncContextManager[Client]:
        log = tmp_path / "server.log"
        return stdio_client(tmp_path / "state", host_key_file, *options, log=log, mode=mode)

    return start


@pytest.fixture(scope="module")
def reference_http(
    tmp_path_factory: pytest.TempPathFactory, host_key_file: Path
) -> Iterator[RunningServer]:
    """One HTTP server for the module (run with --verbose); tests isolate by tenant."""
    folder = tmp_path_factory.mktemp("http")
    with http_server(
        folder / "state", host_key_file, "--verbose", log=folder / "server.log"
    ) as running:
        yield running
