"""The mem reference over streamable HTTP, once: the same tools and answers as over stdio; and
the ``--project`` option, which names the current project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..servers import http_client
from .servers import mem_http, ok, save

pytestmark = pytest.mark.anyio


async def test_save_and_search_over_http(tmp_path: Path) -> None:
    with mem_http(tmp_path, "--project", "  My-Web ") as server:
        async with http_client(server) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"mem_save", "mem_judge", "mem_current_project"} <= names
            memory = await save(client, title="Over HTTP", content="streamable transport")
            found = await ok(client, "mem_search", query="streamable")
            assert f"#{memory} (manual) — Over HTTP" in found and "project: my-web" in found
            bad = await client.call_tool("mem_get_observation", {"id": "one"})
            assert bad.is_error
            current = json.loads(await ok(client, "mem_current_project"))
            assert (current["project"], current["project_source"]) == ("my-web", "process_override")
            assert current["project_path"] == ""
            started = await ok(client, "mem_session_start", id="s1")
            assert started == 'Session "s1" started for project "my-web"'
