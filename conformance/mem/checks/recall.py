"""Context (CTX): what mem_context brings back for a project.

CTX-002's project "with no memories" is a fresh project with a started session and nothing
saved, as upstream's test has it (a session only). CTX-003 is decided only where the server's
``mem_context`` schema lists ``max_bytes`` (the rule's ``requires``; neither v1.7.0 nor the
v1.20.0 line lists it): its project is filled past every budget (twenty memories of four-byte
characters and a long session summary), and each answer's context text (the ``result`` of a
JSON-in-text answer) is measured in UTF-8 bytes. A cut inside a character shows as U+FFFD,
which none of the saved text holds; four consecutive budgets make sure one cut falls inside a
character whatever the text around it. The ``Memory stats:`` footer is not measured: upstream's
handler added it after the bounded context before it reserved room for it.
"""

from __future__ import annotations

from ..answer_text import Unreadable, answer_of, unpack
from ..facts import SummarySaved, ToolFailure
from .context import MemContext
from .registry import check
from .steps import (
    START,
    SUMMARY,
    Project,
    context,
    done,
    fresh_project,
    requirements_unmet,
    save,
    shows,
    summary_arguments,
    summary_sections,
    what_why,
)

SAVE, CONTEXT = "mem_save", "mem_context"
#: CTX-003: the budgets upstream (v2) keeps to
DEFAULT_BYTES, MOST_BYTES = 16 * 1024, 64 * 1024
#: CTX-003: budgets smaller than the context, one after the other (a cut inside a character)
SMALL_BUDGETS = (1000, 1001, 1002, 1003)
#: CTX-003: max_bytes that mean the default (absent, zero, negative) and one beyond the most
DEFAULT_BUDGETS = (None, 0, -1)
BEYOND_MOST = 10**6
#: CTX-003: a character of four UTF-8 bytes, and how many fill a memory and a summary
WIDE = "\U0001f600"
MEMORY_WIDTH, MEMORIES, SUMMARY_WIDTH = 300, 20, 20_000
BAD_CUT = "\ufffd"
#: CTX-003: where the store-wide counts begin, which some upstream versions add after the
#: bounded context (others keep them within the budget)
FOOTER = "\n---\nMemory stats:"


@check(rules=("CTX-001",), tools=(START, SAVE, CONTEXT))
async def context_shows_recent_memories(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    saved = [f"Memory {ctx.unique('recent')}" for _ in range(2)]
    for title in saved:
        await save(ctx, project, title, what_why(title))
    shown = await context(ctx, project)
    for title in saved:
        ctx.expect(
            "CTX-001",
            shows(shown, title),
            expected=f"mem_context of {project.name} listing {title!r}, just saved there",
            observed=shown,
        )


@check(rules=("CTX-002",), tools=(START, CONTEXT))
async def empty_project_context_is_no_error(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    shown = await context(ctx, project)
    ctx.expect(
        "CTX-002",
        not isinstance(shown, ToolFailure),
        expected=f"mem_context of {project.name}, which has no memories, isError false",
        observed=shown,
    )


@check(rules=("CTX-003",), tools=(START, SAVE, SUMMARY, CONTEXT))
async def context_keeps_to_its_byte_budget(ctx: MemContext) -> None:
    if await requirements_unmet(ctx, "CTX-003"):
        return
    project = await fresh_project(ctx)
    await fill(ctx, project)
    for budget in SMALL_BUDGETS:
        await expect_within(ctx, project, budget, budget)
    for default in DEFAULT_BUDGETS:
        await expect_within(ctx, project, default, DEFAULT_BYTES)
    await expect_within(ctx, project, BEYOND_MOST, MOST_BYTES)


async def fill(ctx: MemContext, project: Project) -> None:
    """Memories and a summary of four-byte characters, more than any budget takes."""
    token = ctx.unique("budget")
    for index in range(MEMORIES):
        content = f"{token} {index} {WIDE * MEMORY_WIDTH}"
        await save(ctx, project, f"Wide memory {index} {token}", content)
    summary = summary_sections(f"{token}\n{WIDE * SUMMARY_WIDTH}")
    await done(ctx, SUMMARY, await summary_arguments(ctx, project, summary), SummarySaved)


async def expect_within(ctx: MemContext, project: Project, budget: int | None, most: int) -> None:
    """mem_context of ``project`` with ``max_bytes`` ``budget`` (``None``: absent): at most
    ``most`` bytes of context, cut on a character boundary."""
    arguments = {"project": project.name} | ({} if budget is None else {"max_bytes": budget})
    answer = await ctx.call(CONTEXT, arguments)
    asked = f"mem_context with max_bytes {'absent' if budget is None else budget}"
    if answer.outcome != "result" or answer.is_error:
        ctx.expect("CTX-003", False, expected=f"{asked} answered", observed=answer)
        return
    try:
        text = unpack(CONTEXT, answer_of(CONTEXT, answer).text).human_text()
    except Unreadable as unreadable:
        ctx.require(False, str(unreadable), unreadable.text)
        raise  # not reached: require raised
    text = text[:footer] if (footer := text.rfind(FOOTER)) >= 0 else text
    size, cut_inside = len(text.encode("utf-8")), BAD_CUT in text
    ctx.expect(
        "CTX-003",
        size <= most and not cut_inside,
        expected=f"{asked}: at most {most} bytes of context, cut on a UTF-8 boundary",
        observed=f"{size} bytes" + (", U+FFFD where a character was cut" if cut_inside else ""),
    )
