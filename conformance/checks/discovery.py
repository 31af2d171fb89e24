"""Discovery: the claimed tools are listed, with input schemas equivalent to the spec's, and the
memory namespace holds only the six.

HOST-020 is a profile rule: the seed makes a missing tool legitimate (the capability is absent).
A claimed tool that is not listed still never reads green: the runner makes every rule that
needs it ``error`` (``runner._blocked_tools``), which fails the gate for a must rule, and a
server listing none of the six is class ``none`` (exit code 1).
"""

from __future__ import annotations

from typing import Any

from .context import CheckContext
from .registry import check


@check(rules=("HOST-020",))
async def claimed_tools_are_listed(ctx: CheckContext) -> None:
    _, tools = await ctx.session.list_tools()
    listed = {tool.name for tool in tools}
    for name in ctx.policy.tools:
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
        published: dict[str, Any] = tool.input_schema or {}
        spec_schema = ctx.spec.schema(ctx.spec.tools[tool.name].input_schema)
        differences = []
        if published.get("type") != "object":
            differences.append(f"type is {published.get('type')!r}, not 'object'")
        if published.get("additionalProperties") is not False:
            differences.append("the schema is not closed (additionalProperties is not false)")
        if sorted(published.get("required", [])) != sorted(spec_schema["required"]):
            differences.append(
                f"required {sorted(published.get('required', []))}, "
                f"not {sorted(spec_schema['required'])}"
            )
        if sorted(published.get("properties", {})) != sorted(spec_schema["properties"]):
            differences.append(
                f"properties {sorted(published.get('properties', {}))}, "
                f"not {sorted(spec_schema['properties'])}"
            )
        ctx.expect(
            "HOST-021",
            not differences,
            expected=f"{tool.name}'s input schema as the spec states it",
            observed="; ".join(differences),
        )
