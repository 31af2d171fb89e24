"""Fixtures of the mem reference's tests: one stdio server shared by the tests of a module that
need no serve option of their own (tests isolate by fresh projects and words, as the harness's
checks do: a server takes a second to start on this machine).

Module scope, not session: while anyio's test runner of an async fixture is open, sniffio (which
Selenium brings in, through trio) reads "asyncio" as running in the main thread, and a test of
another module that calls ``anyio.run`` (the harness in-process) is refused "Already running
asyncio in this thread" (with xdist, whichever test a worker takes next)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from mcp import Client

from ..test_cli import refused  # noqa: F401 - the CLI's fixture, for test_cli here
from .servers import mem_stdio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module scope, so that a module's tests share one server (``mem``)."""
    return "asyncio"


@pytest.fixture(scope="module")
async def mem(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    """A client of the shared server (default options; current project ``work``)."""
    async with mem_stdio(tmp_path_factory.mktemp("mem")) as client:
        yield client
