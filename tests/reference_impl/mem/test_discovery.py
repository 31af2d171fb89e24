"""``tools/list``: upstream v1.7.0's fourteen tools with its input schemas, widened (the seed's
``hard``, later lines' search and context arguments, session ids and projects not required),
plus mem_judge and mem_current_project; annotations as upstream (reads read-only, mem_delete
destructive)."""

from __future__ import annotations

import pytest
from engram_conformance.spec.mem import load, widening
from mcp import Client

pytestmark = pytest.mark.anyio

S, N, B = "string", "number", "boolean"
#: tool -> (properties and their types, required), v1.7.0's table widened
SCHEMAS = {
    "mem_search": (
        {
            "query": S,
            "type": S,
            "project": S,
            "all_projects": B,
            "scope": S,
            "match_mode": S,
            "limit": N,
        },
        ["query"],
    ),
    "mem_save": (
        {
            "title": S,
            "content": S,
            "type": S,
            "session_id": S,
            "project": S,
            "scope": S,
            "topic_key": S,
        },
        ["title", "content"],
    ),
    "mem_update": (
        {
            "id": N,
            "title": S,
            "content": S,
            "type": S,
            "project": S,
            "scope": S,
            "topic_key": S,
        },
        ["id"],
    ),
    "mem_suggest_topic_key": ({"type": S, "title": S, "content": S}, []),
    "mem_delete": ({"id": N, "hard_delete": B, "hard": B}, ["id"]),
    "mem_save_prompt": ({"content": S, "session_id": S, "project": S}, ["content"]),
    "mem_context": ({"project": S, "scope": S, "limit": N, "max_bytes": N}, []),
    "mem_stats": ({}, []),
    "mem_timeline": ({"observation_id": N, "before": N, "after": N}, ["observation_id"]),
    "mem_get_observation": ({"id": N}, ["id"]),
    "mem_session_summary": ({"content": S, "session_id": S, "project": S}, ["content"]),
    "mem_session_start": ({"id": S, "project": S, "directory": S}, []),
    # the project is the reference's own: a call naming it ends only that project's session
    "mem_session_end": ({"id": S, "summary": S, "project": S}, ["id"]),
    "mem_capture_passive": (
        {"content": S, "session_id": S, "project": S, "source": S},
        ["content"],
    ),
    "mem_judge": (
        {
            "ids": "array",
            "judgment_id": S,
            "relation": S,
            "reason": S,
            "evidence": S,
            "confidence": N,
            "session_id": S,
        },
        [],
    ),
    "mem_current_project": ({}, []),
}
READ_ONLY = {
    "mem_search",
    "mem_context",
    "mem_get_observation",
    "mem_suggest_topic_key",
    "mem_stats",
    "mem_timeline",
    "mem_current_project",
}


async def test_the_tools_listed_sorted_by_name(mem: Client) -> None:
    names = [tool.name for tool in (await mem.list_tools()).tools]
    assert names == sorted(SCHEMAS)


async def test_input_schemas_are_upstreams(mem: Client) -> None:
    for tool in (await mem.list_tools()).tools:
        properties, required = SCHEMAS[tool.name]
        schema = tool.input_schema
        assert schema["type"] == "object"
        assert {name: value["type"] for name, value in schema["properties"].items()} == properties
        assert schema["required"] == required, tool.name
        assert "additionalProperties" not in schema


async def test_the_listing_widens_the_seed_era_line(mem: Client) -> None:
    """DISC-004: a client of upstream v1.7.0 works with the reference."""
    listing = [
        tool.model_dump(by_alias=True, exclude_none=True) for tool in (await mem.list_tools()).tools
    ]
    assert widening(listing, load().lines["v1.7.0"]).breaks == ()


async def test_judge_takes_two_ids_or_more(mem: Client) -> None:
    [judge] = [tool for tool in (await mem.list_tools()).tools if tool.name == "mem_judge"]
    ids = judge.input_schema["properties"]["ids"]
    assert ids["items"] == {"type": "number"}
    assert ids["minItems"] == 2


async def test_annotations(mem: Client) -> None:
    for tool in (await mem.list_tools()).tools:
        hints = tool.annotations
        assert hints is not None and hints.title, tool.name
        assert hints.open_world_hint is False
        assert hints.read_only_hint is (tool.name in READ_ONLY), tool.name
        assert hints.destructive_hint is (tool.name == "mem_delete"), tool.name


async def test_instructions_name_the_core_tools(mem: Client) -> None:
    instructions = mem.instructions
    assert instructions is not None
    for name in ("mem_save", "mem_search", "mem_context", "mem_session_summary"):
        assert name in instructions
