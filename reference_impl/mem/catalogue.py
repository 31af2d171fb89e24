"""The mem tools as ``tools/list`` shows them, sorted by name as upstream lists them.

The fourteen tools of upstream v1.7.0 with its input schemas (property names, types, required;
no ``additionalProperties``, integers declared ``number``), widened where the reference does
more: ``hard`` on mem_delete (the seed's word); ``match_mode`` and ``all_projects`` on
mem_search and ``max_bytes`` on mem_context (upstream's later arguments); mem_session_start
needs no ``id`` (the seed: the session's id is generated) and it and mem_session_summary no
``project`` (the current one is the default). Then ``mem_judge`` (the seed's form, a list of
ids, beside upstream v1.20's verdict on a ``judgment_id``, neither required) and
``mem_current_project`` (upstream v1.20's). Annotations as upstream: a title, openWorldHint
false, mem_delete destructive, the reads read-only (mem_judge records verdicts: not read-only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp_types as types


def _string(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


def _number(description: str) -> dict[str, str]:
    return {"type": "number", "description": description}


def _boolean(description: str) -> dict[str, str]:
    return {"type": "boolean", "description": description}


_PROJECT = _string("Project name (default: the current project, see mem_current_project)")
_SCOPE = _string("Scope: project (default) or personal")
_SESSION = _string(
    "Session id, of a started session (default: the project's latest active session, else "
    "manual-save-<project>)"
)
_ID = _number("Memory (observation) id")


@dataclass(frozen=True)
class ToolEntry:
    name: str
    title: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...] = ()
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False

    def tool(self) -> types.Tool:
        schema = {"type": "object", "properties": self.properties, "required": [*self.required]}
        return types.Tool(
            name=self.name,
            description=self.description,
            input_schema=schema,
            annotations=types.ToolAnnotations(
                title=self.title,
                read_only_hint=self.read_only,
                destructive_hint=self.destructive,
                idempotent_hint=self.idempotent,
                open_world_hint=False,
            ),
        )


_ENTRIES = (
    ToolEntry(
        "mem_save",
        "Save Memory",
        "Save a significant memory (bugfix, decision, pattern...) with content in "
        "What/Why/Where/Learned form. With a topic_key, a later save of the same key updates it.",
        {
            "title": _string("Short, searchable title"),
            "content": _string("What / Why / Where / Learned"),
            "type": _string(
                "Category: decision, architecture, bugfix, pattern, config, discovery, "
                "learning (default: manual)"
            ),
            "session_id": _SESSION,
            "project": _PROJECT,
            "scope": _SCOPE,
            "topic_key": _string("Key of an evolving topic: a save with the same key updates"),
        },
        ("title", "content"),
    ),
    ToolEntry(
        "mem_search",
        "Search Memory",
        "Full-text search of memories; every term must match (match_mode any: one).",
        {
            "query": _string("Search words"),
            "type": _string("Only memories of this type"),
            "project": _PROJECT,
            "all_projects": _boolean("Search every project (default: false)"),
            "scope": _string("Only memories of this scope: project or personal"),
            "match_mode": _string("all (default): every term must match; any: one is enough"),
            "limit": _number("Most results (default: 10, max: 20)"),
        },
        ("query",),
        read_only=True,
        idempotent=True,
    ),
    ToolEntry(
        "mem_update",
        "Update Memory",
        "Change fields of a memory by id.",
        {
            "id": _ID,
            "title": _string("New title"),
            "content": _string("New content"),
            "type": _string("New type"),
            "project": _string("New project"),
            "scope": _SCOPE,
            "topic_key": _string("New topic key (empty: none)"),
        },
        ("id",),
    ),
    ToolEntry(
        "mem_suggest_topic_key",
        "Suggest Topic Key",
        "Suggest a normalised family/segment topic key (architecture/*, bug/*, decision/*, "
        "pattern/*, config/*, discovery/*, learning/*).",
        {
            "type": _string("Memory type"),
            "title": _string("Memory title"),
            "content": _string("Memory content (used when there is no title)"),
        },
        read_only=True,
        idempotent=True,
    ),
    ToolEntry(
        "mem_delete",
        "Delete Memory",
        "Delete a memory: soft by default (hidden from search, context, get and timeline), "
        "for good with hard_delete (or hard) true.",
        {
            "id": _ID,
            "hard_delete": _boolean("Delete for good (default: false)"),
            "hard": _boolean("Same as hard_delete"),
        },
        ("id",),
        destructive=True,
    ),
    ToolEntry(
        "mem_save_prompt",
        "Save User Prompt",
        "Save what the user asked.",
        {"content": _string("The prompt"), "session_id": _SESSION, "project": _PROJECT},
        ("content",),
    ),
    ToolEntry(
        "mem_context",
        "Get Memory Context",
        "The project's latest session summary, recent sessions, prompts and memories, and "
        "every personal memory.",
        {
            "project": _PROJECT,
            "scope": _string("Only memories of this scope: project or personal"),
            "limit": _number("Most memories (default: 20)"),
            "max_bytes": _number("Most bytes of context (default: 16384, max: 65536)"),
        },
        read_only=True,
        idempotent=True,
    ),
    ToolEntry(
        "mem_stats",
        "Memory Stats",
        "Counts of sessions, memories and prompts, and the projects.",
        {},
        read_only=True,
        idempotent=True,
    ),
    ToolEntry(
        "mem_timeline",
        "Memory Timeline",
        "A memory with the memories saved before and after it in its session.",
        {
            "observation_id": _ID,
            "before": _number("Memories before (default: 5)"),
            "after": _number("Memories after (default: 5)"),
        },
        ("observation_id",),
        read_only=True,
        idempotent=True,
    ),
    ToolEntry(
        "mem_get_observation",
        "Get Observation",
        "One memory in full, with its counters.",
        {"id": _ID},
        ("id",),
        read_only=True,
        idempotent=True,
    ),
    ToolEntry(
        "mem_session_summary",
        "Save Session Summary",
        "Save the end-of-session summary (Goal, Discoveries, Accomplished, Files): what "
        "mem_context shows first next time.",
        {"content": _string("The summary"), "session_id": _SESSION, "project": _PROJECT},
        ("content",),
    ),
    ToolEntry(
        "mem_session_start",
        "Start Session",
        "Start a session of the project (without an id, one is generated and answered).",
        {
            "id": _string("Session id (default: a new one)"),
            "project": _PROJECT,
            "directory": _string("Working directory"),
        },
        idempotent=True,
    ),
    ToolEntry(
        "mem_session_end",
        "End Session",
        "Mark a session completed.",
        {
            "id": _string("Session id"),
            "summary": _string("Short summary"),
            "project": _string("The session's project: the session must be that project's"),
        },
        ("id",),
        idempotent=True,
    ),
    ToolEntry(
        "mem_capture_passive",
        "Capture Learnings",
        "Extract learnings from free text (the items under a '## Key Learnings:' heading, "
        "else the failures it reports) and save each.",
        {
            "content": _string("Text to extract learnings from"),
            "session_id": _SESSION,
            "project": _PROJECT,
            "source": _string("Where the text comes from (default: mcp-passive)"),
        },
        ("content",),
        idempotent=True,
    ),
    ToolEntry(
        "mem_judge",
        "Judge Memories",
        "With ids: a verdict on each of the given memories (contradictory, complementary, "
        "outdated or unrelated) and how each pair relates. With judgment_id and relation: "
        "record the verdict on a candidate that mem_save surfaced.",
        {
            "ids": {
                "type": "array",
                "items": {"type": "number"},
                "minItems": 2,
                "description": "Ids of the memories to judge (at least two)",
            },
            "judgment_id": _string("A judgment_id that mem_save answered"),
            "relation": _string(
                "related, compatible, scoped, conflicts_with, supersedes or not_conflict"
            ),
            "reason": _string("Why"),
            "evidence": _string("What shows it"),
            "confidence": _number("From 0 to 1"),
            "session_id": _string("The started session the verdict is given in"),
        },
        idempotent=True,
    ),
    ToolEntry(
        "mem_current_project",
        "Detect Current Project",
        "The current project: name, how it was found, its folder, and the known projects.",
        {},
        read_only=True,
        idempotent=True,
    ),
)
TOOLS: dict[str, types.Tool] = {
    entry.name: entry.tool() for entry in sorted(_ENTRIES, key=lambda entry: entry.name)
}
