"""Hostile arguments: every mem call answers a tool result (a tool error, or a defined default),
never a JSON-RPC error or a traceback, and the server keeps serving; an unknown tool is -32602."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from .servers import fresh, mem_raw, ok, save, text_of

pytestmark = pytest.mark.anyio

#: values of every JSON type and of every edge a reader can trip on
HOSTILE = [
    12345,
    -1,
    0,
    1.5,
    2**63,
    2**64,
    -(2**63),
    True,
    None,
    "",
    "text",
    "\u0000nul\u0000",
    "x" * 200_000,
    [],
    [1, [2, [3]]],
    {"nested": {"junk": [None, {"": ""}]}},
]
#: enough for each tool to get past its required arguments
MINIMAL: dict[str, dict[str, object]] = {
    "mem_search": {"query": "q"},
    "mem_save": {"title": "t", "content": "c"},
    "mem_update": {"id": 1, "title": "t"},
    "mem_delete": {"id": 999_999},
    "mem_save_prompt": {"content": "c"},
    "mem_timeline": {"observation_id": 1},
    "mem_get_observation": {"id": 1},
    "mem_session_summary": {"content": "c"},
    "mem_session_end": {"id": "s"},
    "mem_capture_passive": {"content": "c"},
    "mem_judge": {"ids": [1, 2]},
}


async def _tool_names(client: Client) -> dict[str, list[str]]:
    tools = (await client.list_tools()).tools
    return {tool.name: list(tool.input_schema["properties"]) for tool in tools}


async def test_every_argument_of_every_tool_survives_hostile_values(mem: Client) -> None:
    project = fresh()
    await save(mem, title="t", content="c", project=project)  # ids 1 and 2 exist somewhere
    await save(mem, title="t2", content="c2", project=project)
    for tool, properties in (await _tool_names(mem)).items():
        result = await mem.call_tool(tool, {})
        assert text_of(result)
        for name in properties:
            for value in HOSTILE:
                arguments = {**MINIMAL.get(tool, {}), "project": project, name: value}
                result = await mem.call_tool(tool, arguments)
                message = text_of(result)
                if result.is_error:
                    assert "\n" not in message and "Traceback" not in message, (tool, name)
                    assert "sqlite" not in message.lower(), (tool, name, message)
                    assert "could not complete" not in message, (tool, name, value)
    assert "Memory System Stats:" in await ok(mem, "mem_stats")


async def test_a_huge_content_is_capped_and_a_huge_title_refused(mem: Client) -> None:
    project = fresh()
    await save(mem, title="big", content="y" * 3_000_000, project=project)
    result = await mem.call_tool("mem_save", {"title": "t" * 1001, "content": "c"})
    assert result.is_error and text_of(result) == "title is too long (at most 1000 characters)"


async def test_an_unknown_tool_is_invalid_params(mem: Client) -> None:
    with pytest.raises(MCPError) as raised:
        await mem.call_tool("mem_rewind", {})
    assert raised.value.code == -32602
    assert "Memory System Stats:" in await ok(mem, "mem_stats")


def _call(request_id: int, arguments_json: str, tool: str = "mem_save") -> bytes:
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"{tool}","arguments":{arguments_json}}}}}'
    ).encode()


RAW_ARGUMENTS = [
    "[]",
    '"a string"',
    "5",
    "null",
    '{"title":NaN,"content":"c"}',
    '{"title":"t","content":Infinity}',
    '{"title":"t","content":"c","type":-Infinity}',
    '{"title":"t","content":"c","scope":1e400}',
    '{"title":"t","title":"again","content":"c"}',
    '{"title":"\\ud800 lone","content":"\\udfff"}',
    '{"title":"t","content":"' + "[" * 300 + "]" * 300 + '"}',
    '{"title":"t","content":' + "[" * 1000 + "]" * 1000 + "}",
    '{"title":"t","content":"c","project":' + "1" * 5000 + "}",
]


def test_raw_arguments_get_tool_results(tmp_path: Path) -> None:
    raw = mem_raw(tmp_path)
    try:
        for number, arguments in enumerate(RAW_ARGUMENTS, 1):
            answer = raw.exchange(_call(number, arguments))
            assert answer["id"] == number
            assert "result" in answer, answer
            [content] = answer["result"]["content"]
            assert content["type"] == "text" and "could not complete" not in content["text"]
        bad_bytes = _call(100, '{"title":"BAD","content":"c"}').replace(b"BAD", b"\xff\xfe")
        answer = raw.exchange(bad_bytes)
        assert "result" in answer
        search = raw.exchange(_call(101, '{"query":"lone"}', "mem_search"))
        assert "Found 1 memories" in search["result"]["content"][0]["text"]
        json.dumps(search)  # every answer is valid JSON text
    finally:
        assert raw.close() == 0
    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert "Traceback" not in log


@pytest.mark.parametrize("name", ["project", "topic_key", "session_id"])
def test_a_name_holding_a_lone_surrogate_is_refused(tmp_path: Path, name: str) -> None:
    """Attack round 6: lone surrogates are read as U+FFFD, so ``a\\ud800`` and ``a\\udc00``
    named one project; a name holding one is refused, a text keeps reading it as U+FFFD."""
    raw = mem_raw(tmp_path)
    try:
        for number, surrogate in enumerate(("\\ud800", "\\udc00"), 1):
            sent = f'{{"title":"t","content":"c {number}","{name}":"a{surrogate}"}}'
            result = raw.exchange(_call(number, sent))["result"]
            assert result["isError"] is True
            [content] = result["content"]
            assert content["text"] == f"{name} must be Unicode text: it holds a lone surrogate"
        saved = raw.exchange(_call(3, '{"title":"t\\ud800","content":"c"}'))["result"]
        assert not saved.get("isError"), saved
    finally:
        assert raw.close() == 0
