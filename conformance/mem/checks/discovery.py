"""Discovery (DISC): what a mem server's opening answer (``initialize`` in the handshake era,
``server/discover`` in 2026-07-28) and tools/list publish.

Every check reads the listing as the SDK parsed it. DISC-004 is judged by
``spec.mem.widening`` against each upstream version line; the others compare the listing with
the rule's own statement. None needs a tool beyond what its rule names, so a server missing a
tool still gets these rules decided.
"""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.mem import widenings
from jsonschema import Draft202012Validator, SchemaError

from .context import MemContext
from .registry import check

SAVE = "mem_save"
DELETE = "mem_delete"
#: DISC-001: the properties of seed 003's conceptual signature, and those a call may leave out
SAVE_PROPERTIES = ("title", "type", "content", "scope", "topic_key")
SAVE_OPTIONAL = ("scope", "topic_key")
#: DISC-006: the read tools, each read-only and not destructive
READ_TOOLS = (
    "mem_search",
    "mem_context",
    "mem_get_observation",
    "mem_suggest_topic_key",
    "mem_stats",
    "mem_timeline",
    "mem_current_project",
)
#: DISC-009: the tools the server's instructions name (initialize's or server/discover's)
INSTRUCTED = ("mem_save", "mem_search", "mem_context", "mem_session_summary")


def _mem_tools(listed: dict[str, Any]) -> dict[str, Any]:
    return {name: tool for name, tool in listed.items() if name.startswith("mem_")}


def _hints(tool: Any) -> tuple[Any, Any]:
    annotations = tool.annotations
    if annotations is None:
        return None, None
    return annotations.read_only_hint, annotations.destructive_hint


@check(rules=("DISC-003",))
async def claimed_tools_are_listed(ctx: MemContext) -> None:
    """The runner reads a descriptor that claims nothing as claiming every tool of the contract
    (all the version lines' tools); DISC-003 makes that default the twelve tools seed 003 names.
    A descriptor's own ``[policy] tools`` is taken as it is."""
    claimed = ctx.claim or ()
    if set(claimed) == set(ctx.spec.tools):
        claimed = ctx.spec.seed_tools
    listed = sorted(await ctx.listed())
    for name in claimed:
        ctx.expect("DISC-003", name in listed, expected=f"{name} in tools/list", observed=listed)


@check(rules=("DISC-002",))
async def seed_tools_are_listed(ctx: MemContext) -> None:
    listed = sorted(await ctx.listed())
    missing = [name for name in ctx.spec.seed_tools if name not in listed]
    ctx.expect(
        "DISC-002",
        not missing,
        expected="every tool seed 003 names in tools/list",
        observed=f"missing {', '.join(missing)}; listed {listed}",
    )


@check(rules=("DISC-001",), tools=(SAVE,))
async def save_takes_the_seed_signature(ctx: MemContext) -> None:
    schema = await ctx.input_schema(SAVE)
    properties = schema.get("properties") or {}
    for name in SAVE_PROPERTIES:
        typed = properties.get(name, {}).get("type") if isinstance(properties, dict) else None
        ctx.expect(
            "DISC-001",
            typed == "string",
            expected=f"mem_save's property {name} of type string",
            observed=properties.get(name) if isinstance(properties, dict) else properties,
        )
    required = [name for name in schema.get("required") or () if name in SAVE_OPTIONAL]
    ctx.expect(
        "DISC-001",
        not required,
        expected="scope and topic_key optional",
        observed=f"required {required}",
    )
    # Exactly the three the rule names, so the memory lands in the server's current project;
    # its unique title keeps it out of every other check's way.
    token = ctx.unique("discsave")
    arguments = {"title": token, "type": "discovery", "content": f"What: {token}"}
    answer = await ctx.call(SAVE, arguments)
    ctx.expect(
        "DISC-001",
        answer.outcome == "result" and not answer.is_error,
        expected="a save with only title, type and content accepted",
        observed=answer,
    )


@check(rules=("DISC-004",))
async def schemas_widen_an_upstream_line(ctx: MemContext) -> None:
    listed = (await ctx.listed()).values()
    listing = [tool.model_dump(by_alias=True, exclude_none=True) for tool in listed]
    judged = widenings(listing, ctx.spec.lines)
    widened = [version for version, found in judged.items() if found.compatible]
    broken = {version: found.breaks for version, found in judged.items() if not found.compatible}
    shown = "; ".join(
        f"{version}: {len(breaks)} breaks, first {breaks[0]}" for version, breaks in broken.items()
    )
    ctx.expect(
        "DISC-004",
        bool(widened),
        expected="a compatible widening of at least one upstream version line",
        observed=shown,
        passed_because=f"widens {', '.join(widened)}" + (f"; breaks {shown}" if shown else ""),
    )


@check(rules=("DISC-005",))
async def tools_carry_annotations(ctx: MemContext) -> None:
    for name, tool in _mem_tools(await ctx.listed()).items():
        annotations = tool.annotations
        title = annotations.title if annotations is not None else None
        read_only, destructive = _hints(tool)
        ctx.expect(
            "DISC-005",
            bool(title) and isinstance(read_only, bool) and isinstance(destructive, bool),
            expected=f"{name}: annotations with a title, readOnlyHint and destructiveHint",
            observed=annotations.model_dump(by_alias=True) if annotations else None,
        )


@check(rules=("DISC-006",))
async def read_tools_are_read_only(ctx: MemContext) -> None:
    listed = await ctx.listed()
    for name in (name for name in READ_TOOLS if name in listed):
        read_only, destructive = _hints(listed[name])
        ctx.expect(
            "DISC-006",
            read_only is True and destructive is False,
            expected=f"{name}: readOnlyHint true, destructiveHint false",
            observed={"readOnlyHint": read_only, "destructiveHint": destructive},
        )


@check(rules=("DISC-007",), tools=(DELETE,))
async def delete_is_destructive(ctx: MemContext) -> None:
    read_only, destructive = _hints((await ctx.listed())[DELETE])
    ctx.expect(
        "DISC-007",
        destructive is True and read_only is False,
        expected="mem_delete: destructiveHint true, readOnlyHint false",
        observed={"readOnlyHint": read_only, "destructiveHint": destructive},
    )


@check(rules=("DISC-008",))
async def input_schemas_are_object_schemas(ctx: MemContext) -> None:
    for name, tool in _mem_tools(await ctx.listed()).items():
        problem = _object_schema_problem(tool.input_schema)
        ctx.expect(
            "DISC-008",
            problem is None,
            expected=f"{name}: an object schema valid under JSON Schema 2020-12",
            observed=problem or "",
        )


def _object_schema_problem(schema: Any) -> str | None:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return f"not {{'type': 'object'}}: {schema!r:.200}"
    if not isinstance(schema.get("properties"), dict):
        return f"properties is {schema.get('properties')!r:.200}, not an object"
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        return f"invalid under 2020-12: {error.message}"
    return None


@check(rules=("DISC-009",))
async def instructions_name_the_core_tools(ctx: MemContext) -> None:
    instructions = ctx.session.connection.default.instructions or ""
    missing = [name for name in INSTRUCTED if name not in instructions]
    ctx.expect(
        "DISC-009",
        not missing,
        expected=f"instructions (initialize or server/discover) naming {', '.join(INSTRUCTED)}",
        observed=f"missing {', '.join(missing)} in {instructions!r:.300}",
    )
