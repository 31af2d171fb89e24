"""Discovery: the claimed tools are listed, with input schemas equivalent to the spec's, and the
memory namespace holds only the six.

HOST-020 is a profile rule: the seed makes a missing tool legitimate (the capability is absent).
A claimed tool that is not listed still never reads green: the runner makes every rule that
needs it ``error`` (``runner._blocked_tools``), which fails the gate for a must rule, and a
server listing none of the six is class ``none`` (exit code 1).
"""

from __future__ import annotations

import json
from typing import Any

from .context import CheckContext
from .registry import check


@check(rules=("HOST-020",))
async def claimed_tools_are_listed(ctx: CheckContext) -> None:
    _, tools = await ctx.session.list_tools()
    listed = {tool.name for tool in tools}
    for name in ctx.claimed_tools:
        ctx.expect(
            "HOST-020", name in listed, expected=f"{name} in tools/list", observed=sorted(listed)
        )


@check(rules=("HOST-024",))
async def memory_namespace_holds_only_the_six(ctx: CheckContext) -> None:
    _, tools = await ctx.session.list_tools()
    extra = [
        tool.name
        for tool in tools
        if tool.name.startswith("engram_memory_") and tool.name not in ctx.spec.tools
    ]
    ctx.expect(
        "HOST-024", not extra, expected="no engram_memory_ tool beyond the six", observed=extra
    )


@check(rules=("HOST-021",))
async def published_input_schemas_match_the_spec(ctx: CheckContext) -> None:
    _, tools = await ctx.session.list_tools()
    for tool in tools:
        if tool.name not in ctx.spec.tools:
            continue
        published: Any = tool.input_schema
        spec_schema = ctx.spec.schema(ctx.spec.tools[tool.name].input_schema)
        differences = _differences(published, spec_schema)
        ctx.expect(
            "HOST-021",
            not differences,
            expected=f"{tool.name}'s input schema as the spec states it",
            observed="; ".join(differences),
        )


def _differences(published: Any, spec_schema: dict[str, Any]) -> list[str]:
    """How a published input schema differs from the spec's (any JSON a server may send)."""
    if not isinstance(published, dict):
        return [f"the input schema is not an object: {json.dumps(published, default=str)[:200]}"]
    differences = []
    if published.get("type") != "object":
        differences.append(f"type is {published.get('type')!r}, not 'object'")
    if published.get("additionalProperties") is not False:
        differences.append("the schema is not closed (additionalProperties is not false)")
    required = published.get("required", [])
    if not _names(required) or sorted(required) != sorted(spec_schema["required"]):
        differences.append(f"required {required!r}, not {sorted(spec_schema['required'])}")
    properties = published.get("properties", {})
    named = sorted(properties) if isinstance(properties, dict) else properties
    if named != sorted(spec_schema["properties"]):
        differences.append(f"properties {named!r}, not {sorted(spec_schema['properties'])}")
    return differences


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)
