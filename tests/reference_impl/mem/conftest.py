"""Fixtures of the mem reference's tests: one stdio server shared by every test that needs no
serve option of its own (tests isolate by fresh projects and words, as the harness's checks do:
a server takes seconds to start on this machine)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from mcp import Client

from ..test_cli import refused  # noqa: F401 - the CLI's fixture, for test_cli here
from .servers import mem_stdio


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Session scope, so that the tests share one server (``mem``)."""
    return "asyncio"


@pytest.fixture(scope="session")
async def mem(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    """A client of the shared server (default options; current project ``work``)."""
    async with mem_stdio(tmp_path_factory.mktemp("mem")) as client:
        yield client
