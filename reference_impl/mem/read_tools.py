"""The tools that read memories: mem_search, mem_get_observation, mem_timeline, mem_stats,
mem_suggest_topic_key and mem_current_project (mem_context and mem_judge have their own
modules).

Listings put each memory's title and content on one line (whitespace collapsed), so that a
line-based reader never takes a memory's text for the next item.
"""

from __future__ import annotations

import json
import re

from . import topic_keys
from .arguments import ToolError
from .call import Call
from .memories import scope_of
from .store import Observation
from .text import folded, one_line, quoted, snippet

SEARCH_LIMIT, SEARCH_MOST = 10, 20
TIMELINE_AROUND, TIMELINE_MOST = 5, 50
MATCH_MODES = {"all": " ", "any": " OR "}
#: The most words a query holds, counted as the index splits them (runs of letters and
#: digits: ``a-b`` is a phrase of two): FTS5 ranks each matching memory once per word, reading
#: all its positions, so a query's cost grows with its words times the text they match (a
#: phrase of 500 words over 40 repetitive memories took 8 s; 500 repeats of one word, minutes).
MAX_QUERY_WORDS = 32
_WORD = re.compile(r"[^\W_]+")


def fts_query(query: str, joiner: str = MATCH_MODES["all"]) -> str:
    """The FTS5 expression of a query: every term (split at whitespace and NUL, which ends an
    FTS5 string) quoted as one string, inner quotes doubled, so that no text is an operator or
    a syntax error (``AND``, ``NEAR``, ``*``, ``^``, ``:``, parentheses, a lone quote); the
    terms joined by ``joiner`` (all must match, or with `` OR `` any), a term repeated (as the
    index folds case and accents) once. No term (a query of NUL characters) matches nothing:
    ``""``. A query of more than ``MAX_QUERY_WORDS`` words is a ``ToolError``."""
    terms = query.replace("\x00", " ").split() or [""]
    unique: dict[str, str] = {}
    for term in terms:
        unique.setdefault(folded(term), term)
    if sum(len(_WORD.findall(term)) for term in unique.values()) > MAX_QUERY_WORDS:
        raise ToolError(
            f"query has too many words (at most {MAX_QUERY_WORDS}, a repeated one counted once)"
        )
    return joiner.join('"' + term.replace('"', '""') + '"' for term in unique.values())


def mem_search(call: Call) -> str:
    """Memories matching the terms (``match_mode``: ``all``, the default, or ``any``), best
    first. With ``project``, that project's only; without, the current project's and every
    personal memory, whatever project it was saved in (personal memories apply to any project,
    seed 003); with ``all_projects`` true, every project's."""
    arguments = call.arguments
    query = arguments.text("query", required=True)
    memory_type = arguments.text("type")
    scope = arguments.text("scope")
    limit = arguments.count("limit", default=SEARCH_LIMIT, most=SEARCH_MOST)
    scope = scope_of(scope) if scope is not None else None
    mode = arguments.text("match_mode") or "all"
    if mode not in MATCH_MODES:
        raise ToolError('match_mode must be "all" or "any"')
    found = call.store.search(
        fts_query(query, MATCH_MODES[mode]),
        None if arguments.flag("all_projects") else call.project(),
        memory_type,
        scope,
        limit,
        personal_everywhere=arguments.text("project") is None,
    )
    if not found:
        return f"No memories found for: {quoted(query)}"
    lines = [f"Found {len(found)} memories:", ""]
    for rank, memory in enumerate(found, 1):
        lines += [
            f"[{rank}] #{memory.id} ({memory.type}) — {one_line(memory.title)}",
            f"    {snippet(memory.content, 300)}",
            f"    {memory.created_at} | project: {memory.project} | scope: {memory.scope}",
            "",
        ]
    return "\n".join(lines).rstrip("\n")


def mem_get_observation(call: Call) -> str:
    """One memory in full. Beyond v1.7.0's lines, ``Updated:`` and ``Last seen:`` (what a
    revision and a duplicate change)."""
    memory = call.live(call.arguments.identifier("id"))
    lines = [
        f"#{memory.id} [{memory.type}] {one_line(memory.title)}",
        memory.content,
        f"Session: {memory.session_id}",
        f"Project: {memory.project}",
        f"Scope: {memory.scope}",
    ]
    if memory.topic_key:
        lines.append(f"Topic: {memory.topic_key}")
    if memory.tool_name:
        lines.append(f"Tool: {memory.tool_name}")
    lines += [
        f"Duplicates: {memory.duplicate_count}",
        f"Revisions: {memory.revision_count}",
        f"Created: {memory.created_at}",
        f"Updated: {memory.updated_at}",
        f"Last seen: {memory.last_seen_at}",
    ]
    return "\n".join(lines)


def mem_timeline(call: Call) -> str:
    """A memory among its session's neighbours (``before``/``after``: 5 by default, 50 at
    most), oldest first."""
    arguments = call.arguments
    focus = call.live(arguments.identifier("observation_id"))
    before = arguments.count("before", default=TIMELINE_AROUND, most=TIMELINE_MOST)
    after = arguments.count("after", default=TIMELINE_AROUND, most=TIMELINE_MOST)
    earlier, later = call.store.neighbours(focus, before, after)
    lines = []
    session = call.store.session(focus.session_id)
    if session is not None:
        summary = f" — {snippet(session.summary, 100)}" if session.summary else ""
        lines += [
            f"Session: {session.project} ({session.started_at}){summary}",
            f"Total observations in session: {session.observations}",
            "",
        ]
    if earlier:
        lines += ["─── Before ───", *map(_neighbour, earlier), ""]
    lines += [
        f">>> #{focus.id} [{focus.type}] {one_line(focus.title)} <<<",
        f"    {snippet(focus.content, 500)}",
        f"    {focus.created_at}",
    ]
    if later:
        lines += ["", "─── After ───", *map(_neighbour, later)]
    return "\n".join(lines)


def _neighbour(memory: Observation) -> str:
    told = snippet(memory.content, 150)
    return f"  #{memory.id} [{memory.type}] {one_line(memory.title)} — {told}"


def mem_stats(call: Call) -> str:
    sessions, observations, prompts = call.store.totals()
    projects = ", ".join(call.store.projects()) or "none yet"
    return "\n".join(
        [
            "Memory System Stats:",
            f"- Sessions: {sessions}",
            f"- Observations: {observations}",
            f"- Prompts: {prompts}",
            f"- Projects: {projects}",
        ]
    )


def mem_suggest_topic_key(call: Call) -> str:
    """The bare key, as seed 003 shows the answer (upstream: ``Suggested topic_key: <key>``)."""
    arguments = call.arguments
    title = arguments.text("title") or ""
    content = arguments.text("content", bounded=False) or ""
    if not title and not content:
        raise ToolError("provide title or content to suggest a topic_key")
    return topic_keys.suggest(arguments.text("type") or "", title, content)


def mem_current_project(call: Call) -> str:
    """The current project as upstream v1.20 answers it: a JSON object in text."""
    current = call.current
    answer = {
        "project": current.name,
        "project_source": current.source,
        "project_path": current.path,
        "cwd": current.cwd,
        "available_projects": call.store.known_projects(),
    }
    return json.dumps(answer, ensure_ascii=False)
