"""The tools that write memories: mem_save, mem_update, mem_delete, mem_save_prompt and
mem_capture_passive. Each answers upstream v1.7.0's text, or raises ``ToolError``.

A ``session_id`` must name a session (``Call.given_session``), a ``scope`` be ``project``
or ``personal`` (``memories.scope_of``): either error is raised before anything is written."""

from __future__ import annotations

from . import judgments, passive, topic_keys
from .arguments import ToolError
from .call import Call, not_found
from .memories import DUPLICATE, Draft, scope_of
from .project import normalized
from .store import PROJECT
from .text import capped, quoted, snippet

DEFAULT_TYPE = "manual"
PASSIVE_TYPE = "passive"
PASSIVE_SOURCE = "mcp-passive"
_PROMPT_ECHO_CHARS = 80
_UPDATABLE = ("title", "content", "type", "project", "scope", "topic_key")
#: what an update names rather than tells (``Arguments.name``)
_NAMES = ("project", "topic_key")
#: fields an update may not blank (a memory keeps a title, a content, a type, a project and a
#: scope)
_NOT_BLANK = ("title", "content", "type", "project", "scope")


def mem_save(call: Call) -> str:
    """Save a memory. Beyond v1.7.0's text: when the save stored new text (not a duplicate)
    and its title resembles other memories of its project and scope, upstream v1.1x's
    ``CONFLICT REVIEW PENDING`` line and a ``Candidate #<id> <judgment_id>: "<title>" (<type>)``
    line for each (``judgments``); and a last line ``ID: <id>`` that names the memory (the new
    one, or the one the save revised or repeated)."""
    arguments = call.arguments
    title = arguments.text("title", required=True)
    content = arguments.text("content", required=True, bounded=False)
    memory_type = arguments.text("type") or DEFAULT_TYPE
    given_key = arguments.name("topic_key")
    given_scope = arguments.text("scope")
    project = call.project()
    draft = Draft.of(
        title=title,
        content=content,
        type=memory_type,
        project=project,
        scope=scope_of(given_scope) if given_scope is not None else PROJECT,
        session_id=call.session_id(project),
        topic_key=topic_keys.normalized(given_key) if given_key else None,
    )
    saved = call.memories.save(draft)
    lines = [f"Memory saved: {quoted(draft.title)} ({draft.type})"]
    if draft.topic_key is None:
        suggestion = topic_keys.suggest(draft.type, draft.title, draft.content)
        lines.append(f"Suggested topic_key: {suggestion}")
    if saved.outcome != DUPLICATE:
        lines += judgments.review_lines(judgments.surface(call.store, saved.id))
    lines.append(f"ID: {saved.id}")
    return "\n".join(lines)


def mem_update(call: Call) -> str:
    arguments = call.arguments
    observation_id = arguments.identifier("id")
    given: dict[str, str | None] = {}
    for name in _UPDATABLE:
        if arguments.sent.get(name) is None:
            continue
        if name in _NAMES:
            value = arguments.name(name)
        else:
            value = arguments.text(name, bounded=name != "content")
        if value is None and name in _NOT_BLANK:
            raise ToolError(f"{name} must not be empty")
        given[name] = value
    if not given:
        raise ToolError("provide at least one field to update")
    if "scope" in given:
        given["scope"] = scope_of(given["scope"] or "")
    if "project" in given:
        given["project"] = normalized(given["project"] or "")
    updated = call.memories.update(observation_id, given)
    if updated is None:
        raise not_found(observation_id)
    title = quoted(updated.title)
    return f"Memory updated: #{updated.id} {title} ({updated.type}, scope={updated.scope})"


#: the two names of a delete's flag: upstream's and the seed's
_HARD = ("hard_delete", "hard")


def mem_delete(call: Call) -> str:
    """Soft delete by default; ``hard_delete`` (upstream's name) or ``hard`` (the seed's) true
    deletes for good. Both given, they must agree: which one meant it is not for the server
    to guess, and nothing is deleted (attack round 6: ``hard_delete`` false and ``hard`` true
    deleted for good)."""
    arguments = call.arguments
    observation_id = arguments.identifier("id")
    flags = {name: arguments.flag(name) for name in _HARD if name in arguments.sent}  # typed
    if len(set(flags.values())) > 1:
        raise ToolError("hard_delete and hard disagree: nothing was deleted (give one of them)")
    hard = any(flags.values())
    if not call.memories.delete(observation_id, hard=hard):
        raise not_found(observation_id)
    done = "permanently deleted" if hard else "soft-deleted"
    return f"Memory #{observation_id} {done}"


def mem_save_prompt(call: Call) -> str:
    content = call.arguments.text("content", required=True, bounded=False)
    project = call.project()
    session_id = call.session_id(project)
    stored = capped(content)
    with call.store.transaction():
        call.store.ensure_session(session_id, project)
        call.store.insert_prompt(session_id, stored, project)
    return f"Prompt saved: {quoted(snippet(stored, _PROMPT_ECHO_CHARS))}"


def mem_capture_passive(call: Call) -> str:
    """Save the learnings of free text (``passive``), in one transaction; each is its own
    memory, of type ``passive`` in project scope, its source in ``tool_name``. A text of more
    learnings than the server takes in one call is refused whole."""
    arguments = call.arguments
    content = arguments.text("content", required=True, bounded=False)
    project = call.project()
    session_id = call.session_id(project)
    source = arguments.text("source") or PASSIVE_SOURCE
    drafts = [
        Draft.of(
            title=passive.title_of(learning),
            content=learning,
            type=PASSIVE_TYPE,
            project=project,
            session_id=session_id,
            tool_name=source,
        )
        for learning in passive.learnings(content)
    ]
    outcomes = [saved.outcome for saved in call.memories.capture(drafts)]
    duplicates = outcomes.count(DUPLICATE)
    counts = f"extracted={len(drafts)} saved={len(outcomes) - duplicates} duplicates={duplicates}"
    return f"Passive capture complete: {counts}"
