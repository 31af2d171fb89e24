"""``mem_context``: what an agent reads at the start of a session, in upstream v1.7.0's markdown.

Of the project (the ``project`` argument, else the current one): first the latest session
summary in full (seed 003: the summary is what ``mem_context`` brings back next time; v1.7.0
only lists it among the observations, cut to 300 characters), then its recent sessions and
prompts, then its recent observations **and every personal one, whatever project it was saved
in** (seed 003; upstream shows other projects' personal memories only to a personal-scope
query without a project). ``scope`` filters the observations: ``personal`` shows the personal
ones only, ``project`` the project's project-scope ones; ``limit`` (default and most 20) counts
them (v1.7.0 ignores it).

The answer takes at most ``max_bytes`` bytes of UTF-8 (upstream v2's budget: 16 KiB when absent
or not positive, 64 KiB at most); a longer one is cut (inside the summary where it falls, else at
a line break) and ends with the line ``[truncated]``.
"""

from __future__ import annotations

from .call import Call
from .memories import scope_of
from .session_tools import SUMMARY_TYPE
from .store import PROJECT
from .text import one_line, snippet, within_bytes

CONTEXT_LIMIT = 20
BUDGET_BYTES, MOST_BYTES = 16 * 1024, 64 * 1024
TRUNCATED = "\n[truncated]"
SESSIONS, PROMPTS = 5, 10
EMPTY = "No previous session memories found."


def mem_context(call: Call) -> str:
    budget = call.arguments.count("max_bytes", default=BUDGET_BYTES, most=MOST_BYTES)
    text, summary = _context(call)
    return within_bytes(text, budget, TRUNCATED, free=summary)


def _context(call: Call) -> tuple[str, range]:
    """The whole context, and where the summary's content lies in it."""
    arguments = call.arguments
    project = call.project()
    given_scope = arguments.text("scope")
    scope = scope_of(given_scope) if given_scope is not None else None
    limit = arguments.count("limit", default=CONTEXT_LIMIT, most=CONTEXT_LIMIT)
    store = call.store
    summary = store.latest_of_type(project, SUMMARY_TYPE) if scope in (None, PROJECT) else None
    sessions = store.recent_sessions(project, SESSIONS)
    prompts = store.recent_prompts(project, PROMPTS)
    besides = summary.id if summary else None
    observations = store.recent(project, scope, limit, besides=besides)
    if not (summary or sessions or prompts or observations):
        return EMPTY, range(0)
    lines = ["## Memory from Previous Sessions", ""]
    free = range(0)
    if summary is not None:
        heading = f"**{one_line(summary.title)}** ({summary.updated_at})"
        lines += ["### Latest Session Summary", heading]
        start = len("\n".join(lines)) + 1
        free = range(start, start + len(summary.content))
        lines += [summary.content, ""]
    if sessions:
        lines.append("### Recent Sessions")
        for session in sessions:
            told = f": {snippet(session.summary, 200)}" if session.summary else ""
            lines.append(
                f"- **{session.project}** ({session.started_at}){told} "
                f"[{session.observations} observations]"
            )
        lines.append("")
    if prompts:
        lines.append("### Recent User Prompts")
        lines += [f"- {prompt.created_at}: {snippet(prompt.content, 200)}" for prompt in prompts]
        lines.append("")
    if observations:
        lines.append("### Recent Observations")
        lines += [
            f"- [{memory.type}] **{one_line(memory.title)}**: {snippet(memory.content, 300)}"
            for memory in observations
        ]
        lines.append("")
    total_sessions, total_observations, _ = store.totals()
    projects = ", ".join(store.projects()) or "none"
    lines += [
        "---",
        f"Memory stats: {total_sessions} sessions, {total_observations} observations "
        f"across projects: {projects}",
    ]
    return "\n".join(lines), free
