"""Structured answers keep the outputSchema their tool publishes (DISC-010).

MCP 2025-11-25: "If an output schema is provided: Servers MUST provide structured results that
conform to this schema." The SDK client checks each result of a tool that publishes one; the
harness keeps a result it refuses (``Session.call``: ``Observation.output_refused``), and the
answer readers then read it from its text, as if it had no structured content.

The per-call check judges every successful answer the SDK checked, in any check of the run. The
scripted one makes sure a run of this rule alone has answers to judge: a save, a search, a
context, a topic key suggestion and the current project, each of a tool that publishes an
outputSchema. A server whose tools publish none makes the rule not applicable.
"""

from __future__ import annotations

from ...per_call_context import PerCallContext
from .context import MemContext
from .registry import check, per_call
from .steps import SAVE, fresh_project, save_arguments, what_why

RULE = "DISC-010"
CALLS_MADE = "tools_with_an_output_schema_are_called"


@check(rules=(RULE,))
async def tools_with_an_output_schema_are_called(ctx: MemContext) -> None:
    listed = await ctx.listed()
    published = sorted(name for name, tool in listed.items() if tool.output_schema is not None)
    if not published:
        ctx.not_applicable(RULE, "no listed tool publishes an outputSchema")
        return
    project = await fresh_project(ctx, "outputs")
    token = ctx.unique("outputs")
    calls = {
        SAVE: save_arguments(project, f"Memory {token}", what_why(token)),
        "mem_search": {"query": token, "project": project.name},
        "mem_context": {"project": project.name},
        "mem_suggest_topic_key": {"title": f"Memory {token}", "content": what_why(token)},
        "mem_current_project": {},
    }
    checked = []
    for tool, arguments in calls.items():
        if tool in published:
            checked.append((await ctx.call(tool, arguments)).output_checked)
    if not any(checked):
        ctx.not_applicable(
            RULE,
            f"the tools publishing an outputSchema ({', '.join(published)}) answered no result "
            "the check could have checked (a whole run judges every answer of theirs)",
        )


@per_call(rules=(RULE,), provoked_by=(CALLS_MADE,))
def structured_answers_keep_the_output_schema(ctx: PerCallContext) -> None:
    observed = ctx.observed
    if observed.method != "tools/call" or observed.outcome != "result":
        return
    if not observed.output_checked:
        return
    ctx.expect(
        RULE,
        observed.output_refused is None,
        expected=f"{observed.tool}'s structuredContent valid under its published outputSchema",
        observed=observed.output_refused,
    )
