"""The session tools: mem_session_start, mem_session_summary and mem_session_end."""

from __future__ import annotations

import secrets

from .arguments import ToolError
from .call import Call, bound
from .memories import Draft
from .store import DEFAULT_SESSION_PREFIX
from .text import capped, quoted

SUMMARY_TYPE = "session_summary"


def mem_session_start(call: Call) -> str:
    """Start (or fill in the blanks of) a session. Upstream's schema requires ``id``; the seed
    says the session's id is generated: without one, it is ``session-<16 hex digits>``, and
    the answer names it either way. A session is its project's: starting another project's
    again is refused, and so is an id of a project's default session (``manual-save-...``),
    which no caller starts."""
    arguments = call.arguments
    session_id = arguments.name("id") or f"session-{secrets.token_hex(8)}"
    refuse_default(session_id)
    project = call.project()
    with call.store.transaction():
        bound(call.store, session_id, project, missing_ok=True)
        call.store.ensure_session(session_id, project, arguments.text("directory") or "")
    return f"Session {quoted(session_id)} started for project {quoted(project)}"


def refuse_default(session_id: str) -> None:
    """A ``ToolError`` for the id of a project's default session, which callers neither start
    nor end: it is the project's, made on its first write without a session."""
    if session_id.startswith(DEFAULT_SESSION_PREFIX):
        raise ToolError(
            f"session ids beginning with {DEFAULT_SESSION_PREFIX} name a project's default "
            "session, which is neither started nor ended: choose another id"
        )


def mem_session_summary(call: Call) -> str:
    """Save the end-of-session summary (Goal, Discoveries, Accomplished, Files) as a memory of
    type ``session_summary``: what ``mem_context`` of the project shows first from then on."""
    content = call.arguments.text("content", required=True, bounded=False)
    project = call.project()
    draft = Draft.of(
        title=f"Session summary: {project}",
        content=content,
        type=SUMMARY_TYPE,
        project=project,
        session_id=call.session_id(project),
    )
    call.memories.save(draft)
    return f"Session summary saved for project {quoted(project)}"


def mem_session_end(call: Call) -> str:
    """Mark a session completed (again: its end time and summary are replaced). The summary
    is capped like every stored text. An unknown session is an error (upstream answers success
    and changes nothing), and so is a project's default session: upstream's call names no
    project, so any caller could write a summary into another project's sessions. A call that
    names its project ends only a session of that project."""
    arguments = call.arguments
    session_id = arguments.name("id", required=True)
    refuse_default(session_id)
    summary = arguments.text("summary", bounded=False)
    project = call.project() if arguments.name("project") is not None else None
    with call.store.transaction():
        bound(call.store, session_id, project)
        stored = capped(summary) if summary is not None else None
        call.store.end_session(session_id, stored)
    return f"Session {quoted(session_id)} completed"
