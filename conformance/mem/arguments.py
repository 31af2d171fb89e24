"""A mem call built from the server's own ``inputSchema``: each argument a check gives, under the
name the server publishes for it, or not at all.

Checks give their arguments under the kit's names (upstream's: ``query``, ``id``, ``project``,
``session_id``, ...). Seed 003 names some arguments (``mem_save``'s ``title``, ``type``,
``content``, ``scope``, ``topic_key``; ``mem_update``'s and ``mem_delete``'s ``id``; ``hard``;
``mem_capture_passive``'s ``content`` and ``session_id``) and leaves the rest to each server, so an
argument is sent:

- under its own name, when the schema publishes it;
- else under the first of its usual other names (``SYNONYMS``) the schema publishes;
- else, for the one argument a call cannot do without, under the schema's only required property
  no other argument took, when its type fits (a search's query called ``needle``);
- else not at all, when leaving it out keeps what the call asks (``OPTIONAL``: the project, folder
  or session that name where a call runs; ``mem_save``'s ``scope="project"``, the seed's default
  for a new memory, never a filter's);
- an argument whose value is ``None`` is not sent (a session whose id no answer gave);
- else the call cannot be made as the check means it: ``NotPublished`` names the argument, and the
  check's rules are not applicable.

Two arguments are never sent under one published name (alternatives are never sent together).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

MEMORY_IDS = ("id", "observation_id", "memory_id", "obs_id", "observationId", "memoryId")
SESSION_IDS = ("session_id", "sessionId", "session", "id")
#: the usual other names of an argument, its own name first
SYNONYMS: dict[str, tuple[str, ...]] = {
    "id": MEMORY_IDS,
    "observation_id": ("observation_id", *MEMORY_IDS),
    "query": ("query", "q", "text", "search", "term", "terms", "keywords", "search_query"),
    "session_id": SESSION_IDS,
    "project": ("project", "project_name", "projectName"),
    "directory": ("directory", "dir", "cwd", "path", "project_path", "workdir", "folder"),
    "ids": ("ids", "memory_ids", "observation_ids", "memoryIds", "observationIds"),
    "topic_key": ("topic_key", "topicKey", "topic"),
    "hard": ("hard", "hard_delete", "hardDelete", "permanent"),
    "hard_delete": ("hard_delete", "hard", "hardDelete", "permanent"),
    "limit": ("limit", "max_results", "maxResults", "top_k", "k"),
}
#: where a tool's argument means something else than elsewhere (a session tool's ``id``)
TOOL_SYNONYMS: dict[tuple[str, str], tuple[str, ...]] = {
    ("mem_session_start", "id"): SESSION_IDS,
    ("mem_session_end", "id"): SESSION_IDS,
}
#: arguments a call keeps its meaning without: where it runs (the server's own project, folder,
#: session then), and the values the seed makes the default
OPTIONAL = frozenset({"project", "directory", "session_id"})
OPTIONAL_IN = {("mem_session_start", "id"), ("mem_session_end", "id")}
DEFAULTS = {("mem_save", "scope"): "project"}
NO_DEFAULT = object()
JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


class NotPublished(Exception):
    """A call needs an argument ``tool``'s input schema does not publish under any name."""

    def __init__(self, tool: str, argument: str, published: list[str]) -> None:
        listed = ", ".join(published) or "no argument"
        super().__init__(
            f"{tool}'s input schema publishes no argument for {argument!r} (it lists {listed})"
        )
        self.tool, self.argument = tool, argument


def names_for(tool: str, argument: str) -> tuple[str, ...]:
    """The names a server may publish ``argument`` of ``tool`` under, the kit's own first."""
    return TOOL_SYNONYMS.get((tool, argument)) or SYNONYMS.get(argument) or (argument,)


def published_name(tool: str, argument: str, properties: Collection[str]) -> str | None:
    """The name ``tool``'s schema (its ``properties``, or their names) publishes ``argument``
    under, if any."""
    return next((name for name in names_for(tool, argument) if name in properties), None)


def optional(tool: str, argument: str, value: Any) -> bool:
    """Whether a call of ``tool`` keeps its meaning without ``argument`` set to ``value``."""
    return (
        argument in OPTIONAL
        or (tool, argument) in OPTIONAL_IN
        or DEFAULTS.get((tool, argument), NO_DEFAULT) == value
    )


def fits(schema: Any, value: Any) -> bool:
    """Whether ``value`` is of a JSON type a property's ``schema`` allows (any, untyped)."""
    declared = schema.get("type") if isinstance(schema, dict) else None
    kinds = [declared] if isinstance(declared, str) else declared
    if not isinstance(kinds, list):
        return True
    if isinstance(value, bool):
        return "boolean" in kinds
    return any(isinstance(value, JSON_TYPES.get(kind, ())) for kind in kinds)


def published_call(tool: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict:
    """``arguments`` under the names ``tool``'s input ``schema`` publishes (see the module's
    text); raises ``NotPublished`` for one the call cannot do without."""
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required")
    required = (
        [name for name in required if name in properties] if isinstance(required, list) else []
    )
    sent: dict[str, Any] = {}
    unplaced: list[tuple[str, Any]] = []
    for argument, value in arguments.items():
        if value is None:  # nothing to say (a session the server named none for)
            continue
        name = published_name(tool, argument, properties)
        if name is not None and name not in sent:
            sent[name] = value
        elif not optional(tool, argument, value):
            unplaced.append((argument, value))
    for argument, value in unplaced:
        free = [name for name in required if name not in sent]
        if len(unplaced) == 1 and len(free) == 1 and fits(properties[free[0]], value):
            sent[free[0]] = value
        else:
            raise NotPublished(tool, argument, sorted(properties))
    return sent
