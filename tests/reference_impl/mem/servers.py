"""The mem reference started as the harness starts it: ``engram-reference serve --contract mem``
in a subprocess, in a working folder of its own, spoken to by the SDK's client.

A server process takes seconds to start on this machine, so the tests share one
(``conftest.mem``) and every test isolates itself by fresh project names and unique words
(``fresh``), as the harness's checks do; a test that needs other serve options, or an empty
store, starts its own.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult

from ..servers import EXECUTABLE, TIMEOUT_S, RawStdio, RunningServer, _stop, announced

_SAVED_ID = re.compile(r"^ID: (\d+)$", re.MULTILINE)
DESCRIPTOR = Path(__file__).parents[3] / "targets" / "mem-reference.toml"


def mem_command(state_dir: Path, *options: str) -> list[str]:
    """The descriptor's command, run by this environment's ``engram-reference``."""
    program, *arguments = tomllib.loads(DESCRIPTOR.read_text(encoding="utf-8"))["server"]["command"]
    assert program == EXECUTABLE.name
    filled = [argument.replace("{state_dir}", str(state_dir)) for argument in arguments]
    return [str(EXECUTABLE), *filled, *options]


@asynccontextmanager
async def mem_stdio(folder: Path, *options: str) -> AsyncIterator[Client]:
    """An initialized client of a fresh server on ``folder/state``, working in ``folder/work``
    (so its current project is ``work``); its stderr is ``folder/server.log``."""
    command, *args = mem_command(folder / "state", *options)
    work = folder / "work"
    work.mkdir(exist_ok=True)
    parameters = StdioServerParameters(command=command, args=args, cwd=work)
    with (folder / "server.log").open("a", encoding="utf-8") as errlog:
        transport = stdio_client(parameters, errlog=errlog)
        async with Client(transport, mode="legacy", read_timeout_seconds=TIMEOUT_S) as client:
            yield client


@contextmanager
def mem_http(folder: Path, *options: str) -> Iterator[RunningServer]:
    """A running ``serve --contract mem --http --port 0``, stopped on exit."""
    log = folder / "server.log"
    stdout = folder / "server.stdout"
    command = mem_command(folder / "state", *options, "--http", "--port", "0")
    with log.open("a", encoding="utf-8") as errlog, stdout.open("ab") as out:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=out, stderr=errlog, cwd=folder
        )
    try:
        yield announced(process, log, stdout)
    finally:
        _stop(process)


def mem_raw(folder: Path, *options: str) -> RawStdio:
    """A server process driven line by line, for what an SDK client will not send."""
    return RawStdio(mem_command(folder / "state", *options), folder / "server.log")


def fresh(what: str = "p") -> str:
    """A name no other test uses: a project, or a word to find."""
    return f"{what}{uuid.uuid4().hex[:12]}"


def text_of(result: CallToolResult) -> str:
    [content] = result.content
    assert content.type == "text"
    return content.text


async def ok(client: Client, tool: str, **arguments: object) -> str:
    """The text of a call that must succeed."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def failed(client: Client, tool: str, **arguments: object) -> str:
    """The one-line message of a call that must fail as a tool error."""
    result = await client.call_tool(tool, arguments)
    message = text_of(result)
    assert result.is_error, message
    assert "\n" not in message and message
    return message


async def save(client: Client, **arguments: object) -> int:
    """Save a memory; its id (the reference's extra ``ID:`` line)."""
    found = _SAVED_ID.search(await ok(client, "mem_save", **arguments))
    assert found is not None
    return int(found.group(1))


async def observation(client: Client, observation_id: int) -> dict[str, str]:
    """``mem_get_observation``'s ``Name: value`` lines, and its first line as ``heading``."""
    heading, *lines = (await ok(client, "mem_get_observation", id=observation_id)).splitlines()
    fields = dict(line.split(": ", 1) for line in lines if re.match(r"^[A-Z][a-z ]+: ", line))
    return {"heading": heading, **fields}
