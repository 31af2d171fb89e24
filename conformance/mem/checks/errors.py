"""Errors (ERR): how a mem server answers calls that fail, name no tool it lists, or carry bad
arguments.

The checks judge the harness's record of each answer (``Observation``): a tool result (with its
``isError`` and first text), a JSON-RPC error (``protocol_error`` and its code) or a fault (the
connection broke or timed out). They call only the tools the server lists, so a server of an
older line (no mem_judge, no mem_current_project) still has these rules decided.

- ERR-001 provokes a failure of each tool that can fail with what every version refuses (no
  argument, blank ones, a scope that is none): a call that failed, as an ``isError`` result or
  a JSON-RPC error, is judged; one the server took is not (upstream takes what the reference
  refuses).
- ERR-003 sends each listed tool, from its published schema, no argument, then each property
  alone with a value of another JSON type, ``null``, an array and an object, then an unknown
  argument, each in a fresh project where the tool takes a project; every answer must be a
  tool result. A fault is a failure (the server stopped serving), after which the runner
  reconnects. After the last, a plain search must be answered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .context import MemContext
from .refusing import other_types, refused
from .registry import check
from .steps import Project, fresh_project

#: the tools ERR-001 and ERR-003 call (those their rules name)
ERR_TOOLS = (
    "mem_save",
    "mem_search",
    "mem_context",
    "mem_suggest_topic_key",
    "mem_update",
    "mem_delete",
    "mem_session_start",
    "mem_session_summary",
    "mem_session_end",
    "mem_capture_passive",
    "mem_judge",
    "mem_current_project",
)
#: ERR-001: calls that fail on the reference, most of them on every version (mem_session_start
#: and mem_current_project have none: they take any call)
FAILING: dict[str, tuple[dict[str, Any], ...]] = {
    "mem_save": ({}, {"title": "", "content": "", "type": ""}),
    "mem_search": ({}, {"query": ""}),
    "mem_context": ({"scope": "nowhere"},),
    "mem_suggest_topic_key": ({}, {"title": "", "content": ""}),
    "mem_update": ({}, {"id": 0}),
    "mem_delete": ({},),
    "mem_session_summary": ({}, {"content": ""}),
    "mem_session_end": ({},),
    "mem_capture_passive": ({}, {"content": ""}),
    "mem_judge": ({},),
}
#: ERR-003: the values of any type that stand for a wrong one
ANY_WRONG: tuple[Any, ...] = (None, [1, "a"], {"a": 1})
#: ERR-004: calls without an id, with id 0, or of an id no memory has
UNKNOWN_ID = 999_999_999
WITHOUT_ID: tuple[tuple[str, dict[str, Any]], ...] = (
    ("mem_update", {"title": "ERR-004 without an id"}),
    ("mem_update", {"id": 0, "title": "ERR-004 with id 0"}),
    ("mem_delete", {}),
    ("mem_delete", {"id": 0}),
    ("mem_get_observation", {}),
    ("mem_get_observation", {"id": 0}),
    ("mem_get_observation", {"id": UNKNOWN_ID}),
    ("mem_timeline", {}),
)


async def _listed_err_tools(ctx: MemContext, rule: str) -> dict[str, Any]:
    """The tools of ``ERR_TOOLS`` the server lists; each other is not applicable to ``rule``."""
    listed = await ctx.listed()
    for name in ERR_TOOLS:
        if name not in listed:
            ctx.not_applicable(rule, f"{name}: not listed")
    return {name: listed[name] for name in ERR_TOOLS if name in listed}


@check(rules=("ERR-001",))
async def failures_are_tool_errors(ctx: MemContext) -> None:
    listed = await _listed_err_tools(ctx, "ERR-001")
    calls = [
        (tool, given) for tool, failing in FAILING.items() if tool in listed for given in failing
    ]
    for tool, arguments in calls:
        if not await ctx.takes(tool, arguments):
            continue  # the server's schema has no such argument: no such failure to judge
        answer = await ctx.call(tool, arguments)
        if not refused(answer):
            continue  # taken with defaults: no failure to judge
        ctx.expect(
            "ERR-001",
            answer.outcome == "result" and bool(answer.text),
            expected=f"{tool}({arguments}) fails as an isError result with a text",
            observed=answer,
        )


@check(rules=("ERR-002",))
async def unknown_tool_is_invalid_params(ctx: MemContext) -> None:
    name = f"mem_{ctx.unique('nosuchtool')}"
    listed = await ctx.listed()
    ctx.require(name not in listed, f"{name} is not listed", sorted(listed))
    code = ctx.spec.rules["ERR-002"].protocol_error
    answer = await ctx.call(name, {}, as_given=True)
    ctx.expect(
        "ERR-002",
        answer.outcome == "protocol_error" and answer.error_code == code,
        expected=f"tools/call of {name}, which the server does not list: JSON-RPC error {code}",
        observed=answer,
    )


def bad_arguments(schema: Any, project: Project) -> Iterator[dict[str, Any]]:
    """The bad arguments of a tool of input ``schema``: none, each property alone with a
    value of another type, null, an array and an object, and an unknown argument; each call
    names ``project`` where the tool takes one (but for a bad ``project``), so that whatever a
    server takes lands there, not in the current project other checks use."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    properties = properties if isinstance(properties, dict) else {}
    anchor = {"project": project.name} if "project" in properties else {}
    yield anchor
    for name, spec in properties.items():
        declared = spec.get("type") if isinstance(spec, dict) else None
        wrong = other_types(declared) + ANY_WRONG
        for value in wrong:
            yield anchor | {name: value}
    yield anchor | {"not_an_argument_of_any_mem_tool": "x"}


@check(rules=("ERR-003",))
async def bad_arguments_get_tool_results(ctx: MemContext) -> None:
    """Each bad argument object a case of its own: one left unanswered is ERR-003's failure and
    the next is sent while the server answers; a server that stopped serving ends the check."""
    project = await fresh_project(ctx, "errbad")
    for tool, listed in (await _listed_err_tools(ctx, "ERR-003")).items():
        for arguments in bad_arguments(listed.input_schema, project):
            async with ctx.case(("ERR-003",), f"{tool}({arguments})"):
                answer = await ctx.call(tool, arguments, as_given=True)
                ctx.expect(
                    "ERR-003",
                    answer.outcome == "result",
                    expected=f"{tool}({arguments}) answers a tool result, not a JSON-RPC error",
                    observed=answer,
                )
    after = {"query": ctx.unique("errafter"), "project": project.name}
    async with ctx.case(("ERR-003",), "a mem_search after the bad arguments"):
        answer = await ctx.call("mem_search", after, as_given=True)
        ctx.expect(
            "ERR-003",
            answer.outcome == "result",
            expected="after the bad arguments, a mem_search answered",
            observed=answer,
        )


@check(rules=("ERR-004",), tools=("mem_update", "mem_delete"))
async def missing_or_unknown_ids_fail(ctx: MemContext) -> None:
    """Each tool the server lists (the rule speaks of each)."""
    for tool, arguments in WITHOUT_ID:
        if not await ctx.lists(tool):
            ctx.not_applicable("ERR-004", f"{tool}: not listed")
            continue
        answer = await ctx.call(tool, arguments)
        ctx.expect(
            "ERR-004",
            answer.outcome == "result" and answer.is_error is True,
            expected=f"{tool}({arguments}) answers isError",
            observed=answer,
        )
