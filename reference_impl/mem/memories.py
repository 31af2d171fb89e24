"""How memories are written: the save pipeline (topic-key upsert, hash dedupe, insert), passive
captures, updates and deletes, each one transaction of the store.

A save, after its content is capped (``Draft.of``; arguments are redacted as they are read):

1. with a topic key that a live memory of the same project and scope holds, it revises that
   memory (``revision_count`` + 1, ``updated_at`` and ``last_seen_at`` now), unless it repeats
   it (below), which is a duplicate instead: the seed's dedupe names no topic key, so a repeated
   save is absorbed whether or not it carries one;
2. else, when a live memory with the same content (hash of the lowercased, whitespace-collapsed
   text), title, type and project was created within the dedupe window, it is a duplicate of it
   (``duplicate_count`` + 1, ``last_seen_at`` now; nothing else changes, its scope included);
3. else it is a new memory.

Dedupe compares the seed's four (content, title, type, project), not the scope, which upstream
adds: a save identical to a memory but for its scope is a duplicate of it, topic key or not (a
key names a memory of one project and scope, but a repeat is absorbed before a new memory is
made for the key in the other scope).

Every comparison is of text as stored, redacted: two saves whose titles or contents differ
only inside ``<private>`` spans repeat one memory, as the store keeps nothing that tells them
apart. Names are not redacted into one: a topic key, project or session id that holds a
private span is refused (``Arguments.name``).

A scope is ``project`` or ``personal`` (seed 003), any case; any other value is a tool error,
where upstream stores it as ``project``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from . import topic_keys
from .arguments import ToolError
from .store import PERSONAL, PROJECT, Observation, Store, default_session
from .text import capped, content_hash, quoted

logger = logging.getLogger(__name__)

INSERTED, REVISED, DUPLICATE = "inserted", "revised", "duplicate"
#: the most learnings one passive capture saves unless the server is told otherwise: every one
#: is a memory, and a capture is one transaction that holds up every other call
DEFAULT_MOST_LEARNINGS = 1000
#: what a topic-key revision replaces; the memory keeps its id, session, project and scope
_TOPIC_REVISED = ("type", "title", "content", "tool_name", "topic_key", "normalized_hash")


SCOPES = (PROJECT, PERSONAL)


def scope_of(given: str) -> str:
    """The scope ``given`` names (any case, trimmed), else ``ToolError``."""
    scope = given.strip().lower()
    if scope not in SCOPES:
        raise ToolError(f"scope must be {PROJECT} or {PERSONAL}")
    return scope


@dataclass(frozen=True)
class Draft:
    """A memory about to be saved, as it will be stored."""

    session_id: str
    project: str
    title: str
    content: str
    type: str
    scope: str = PROJECT
    topic_key: str | None = None
    tool_name: str | None = None

    @classmethod
    def of(cls, *, title: str, content: str, **fields: Any) -> Draft:
        """A draft of the caller's text, its content capped."""
        return cls(title=title, content=capped(content), **fields)

    def values(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "project": self.project,
            "title": self.title,
            "content": self.content,
            "type": self.type,
            "scope": self.scope,
            "topic_key": self.topic_key,
            "tool_name": self.tool_name,
            "normalized_hash": content_hash(self.content),
        }


@dataclass(frozen=True)
class Saved:
    id: int
    #: ``INSERTED``, ``REVISED`` or ``DUPLICATE``
    outcome: str


class Memories:
    """The writes of one store. ``dedupe_window``: how long after a memory's creation a repeat
    is absorbed into it (``None``: never); ``most_learnings``: the most learnings one passive
    capture may save."""

    def __init__(
        self,
        store: Store,
        dedupe_window: timedelta | None,
        most_learnings: int = DEFAULT_MOST_LEARNINGS,
    ) -> None:
        self.store = store
        self.dedupe_window = dedupe_window
        self.most_learnings = most_learnings

    def save(self, draft: Draft) -> Saved:
        values = draft.values()
        with self.store.transaction():
            self.store.ensure_session(draft.session_id, draft.project)
            topic = (
                self.store.topic_match(draft.topic_key, draft.project, draft.scope)
                if draft.topic_key
                else None
            )
            if topic is not None and not self._repeats(topic, values):
                revised = {column: values[column] for column in _TOPIC_REVISED}
                self.store.revise(topic.id, revised, seen=True)
                return Saved(topic.id, REVISED)
            repeated = topic or self._recent_duplicate(values)
            if repeated is not None:
                self.store.seen_again(repeated.id)
                return Saved(repeated.id, DUPLICATE)
            return Saved(self.store.insert_observation(values), INSERTED)

    def capture(self, drafts: list[Draft]) -> list[Saved]:
        """Passive learnings of one session and project, all in one transaction (all stored, or
        none): each a duplicate of any live memory of its project with the same content
        (whatever its type, title or scope, and however old, as upstream; an earlier learning
        of the same capture included), else new. More than ``most_learnings`` is a
        ``ToolError``, and nothing is stored."""
        if len(drafts) > self.most_learnings:
            raise ToolError(
                f"the text holds {len(drafts)} learnings, more than the {self.most_learnings} "
                "one capture may save: nothing was saved (capture it in parts)"
            )
        if not drafts:
            return []
        values = [draft.values() for draft in drafts]
        hashes = [value["normalized_hash"] for value in values]
        with self.store.transaction():
            self.store.ensure_session(drafts[0].session_id, drafts[0].project)
            known = self.store.same_contents(hashes, drafts[0].project)
            return [self._captured(value, known) for value in values]

    def _captured(self, values: dict[str, Any], known: dict[str, int]) -> Saved:
        """One learning; ``known``: content hash -> a live memory of the project with it, the
        learnings of this capture stored so far included."""
        content = values["normalized_hash"]
        if content in known:
            self.store.seen_again(known[content])
            return Saved(known[content], DUPLICATE)
        known[content] = self.store.insert_observation(values)
        return Saved(known[content], INSERTED)

    def update(self, observation_id: int, given: dict[str, str | None]) -> Observation | None:
        """Change the given fields of a live memory (only a topic key may be ``None``, which
        clears it): one more revision, ``updated_at`` now. ``None`` when there is no such live
        memory. A memory moved to another project leaves its session for that project's
        default one: a session holds one project's memories only."""
        changes: dict[str, Any] = dict(given)
        if "content" in changes:
            changes["content"] = capped(changes["content"])
            changes["normalized_hash"] = content_hash(changes["content"])
        if "topic_key" in changes:
            changes["topic_key"] = topic_keys.normalized(changes["topic_key"] or "")
        with self.store.transaction():
            memory = self.store.observation(observation_id)
            if memory is None:
                return None
            self._keep_topic_unique(memory, changes)
            moved_to = changes.get("project", memory.project)
            if moved_to != memory.project:
                changes["session_id"] = default_session(moved_to)
                self.store.ensure_session(changes["session_id"], moved_to)
            self.store.revise(observation_id, changes, seen=False)
            return self.store.observation(observation_id)

    def delete(self, observation_id: int, *, hard: bool) -> bool:
        """Soft-delete (hide) a live memory, or hard-delete (erase) a live or soft-deleted one:
        a soft-deleted memory is marked, not erased, until a hard delete. False: no memory to
        delete (none has the id, or a soft delete finds it already soft-deleted).

        A hard delete erases the text from every file of the state folder (``Store.hard_delete``,
        then the WAL checkpointed after the commit); when another process on the same folder
        keeps the checkpoint from completing, the WAL is erased at the next one (the next hard
        delete, or the last connection's close), and a warning is logged."""
        with self.store.transaction():
            if self.store.observation(observation_id, deleted=hard) is None:
                return False
            if hard:
                self.store.hard_delete(observation_id)
            else:
                self.store.soft_delete(observation_id)
        if hard and not self.store.checkpoint():
            logger.warning("a hard delete's WAL checkpoint was kept from completing")
        return True

    def _keep_topic_unique(self, memory: Observation, changes: dict[str, Any]) -> None:
        """A ``ToolError`` when the update would give ``memory`` a topic key that another live
        memory of its (new) project and scope holds: a key names one memory, which a later save
        of the key revises, so two holders would leave that save to pick one."""
        key, project, scope = (
            changes.get(name, getattr(memory, name)) for name in ("topic_key", "project", "scope")
        )
        if key is None or not {"topic_key", "project", "scope"} & changes.keys():
            return
        holder = self.store.topic_match(key, project, scope)
        if holder is not None and holder.id != memory.id:
            raise ToolError(
                f"topic_key {quoted(key)} already names memory #{holder.id} of that project "
                "and scope: update that memory, or choose another key"
            )

    def _repeats(self, memory: Observation, values: dict[str, Any]) -> bool:
        same = (memory.normalized_hash, memory.title, memory.type) == (
            values["normalized_hash"],
            values["title"],
            values["type"],
        )
        return same and self._within_window(memory)

    def _within_window(self, memory: Observation) -> bool:
        window = self.dedupe_window
        return window is not None and memory.created_at >= self.store.since(window)

    def _recent_duplicate(self, values: dict[str, Any]) -> Observation | None:
        if self.dedupe_window is None:
            return None
        return self.store.duplicate_of(values, self.store.since(self.dedupe_window))
