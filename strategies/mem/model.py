"""What a mem server must hold for one example: its observations, by id, in two projects and
both scopes, as seed 003 and the rule statements make certain.

A counter the rules do not pin down (``revision_count`` after ``mem_update``, which no rule
counts; ``duplicate_count`` of a keyed memory, which dedupe names no key for; a save whose
answer was lost, which the server may or may not have run) is a range, narrowed to what the
server shows once it is read (``Count.learn``), so that later steps are judged from there. So is
a new memory's first ``revision_count`` and ``duplicate_count``: the seed gives their increments
(a topic upsert, a duplicate save), not the value they start from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PROJECT, PERSONAL = "project", "personal"
SCOPES = (PROJECT, PERSONAL)
#: what a counter is when no rule says what it is
UNBOUNDED = 1 << 30

#: How a memory's text came to be what it is: the rule whose statement says so.
SAVED, REVISED, UPDATED = "SAVE-001", "TOPIC-001", "UPD-001"


@dataclass
class Count:
    """A counter the server must show: between ``least`` and ``most``."""

    least: int
    most: int

    @classmethod
    def exactly(cls, value: int) -> Count:
        return cls(value, value)

    @classmethod
    def unknown(cls) -> Count:
        return cls(0, UNBOUNDED)

    @property
    def known(self) -> bool:
        return self.most < UNBOUNDED

    def add(self, least: int, most: int | None = None) -> None:
        self.least += least
        self.most = min(UNBOUNDED, self.most + (least if most is None else most))

    def holds(self, value: int) -> bool:
        return self.least <= value <= self.most

    def learn(self, value: int) -> None:
        """The server showed ``value`` (one it may show): from now on it is that."""
        self.least = self.most = value

    def __str__(self) -> str:
        if self.least == self.most:
            return str(self.least)
        return f"{self.least} or more" if not self.known else f"{self.least} to {self.most}"


@dataclass
class Memory:
    """One observation the example made."""

    id: int
    project: str
    scope: str
    type: str
    title: str
    content: str
    #: the token of the save that made it (its title and content hold it)
    token: str
    #: the session it was saved with (None: none named, or it is not certain which)
    session: str | None
    topic_key: str | None
    revisions: Count
    duplicates: Count
    #: when it was created (``time.monotonic()``), for the dedupe window
    created_at: float
    #: the ``mem_save`` arguments a repeat sends again (None once its text changed: a repeat is
    #: then no longer identical to it)
    repeatable: dict[str, str] | None = None
    #: the rule that says its text is what it is (``SAVED``, ``REVISED``, ``UPDATED``)
    shaped_by: str = SAVED
    #: None while live; ``"soft"`` or ``"hard"`` once deleted
    deleted: str | None = None
    #: titles it had before (a search or context may not show them any more)
    old_titles: list[str] = field(default_factory=list)

    @property
    def live(self) -> bool:
        return self.deleted is None

    def rewritten(self, title: str, content: str, shaped_by: str) -> None:
        self.old_titles.append(self.title)
        self.title, self.content, self.shaped_by = title, content, shaped_by
        self.repeatable = None


@dataclass
class ExampleModel:
    """The example's two projects and the memories it made in them."""

    projects: tuple[str, str]
    #: the sessions still open, by project
    sessions: dict[str, str] = field(default_factory=dict)
    memories: dict[int, Memory] = field(default_factory=dict)

    def live(
        self, project: str | None = None, scope: str | None = None, type: str | None = None
    ) -> list[Memory]:
        """The live memories of ``project`` (any when None), of ``scope`` and ``type`` when
        given."""
        return [
            m
            for m in self.memories.values()
            if m.live
            and (project is None or m.project == project)
            and (scope is None or m.scope == scope)
            and (type is None or m.type == type)
        ]

    def topic_holder(self, key: str, project: str, scope: str) -> Memory | None:
        """The live memory that holds ``key`` in ``project`` and ``scope``, if any."""
        held = [m for m in self.live(project, scope) if m.topic_key == key]
        return held[0] if held else None

    def with_key(self, key: str) -> list[Memory]:
        """Every memory, live or deleted, that holds ``key``, in any project and scope."""
        return [m for m in self.memories.values() if m.topic_key == key]

    def titled(self, title: str) -> Memory | None:
        """The memory that has or had ``title`` (every title holds a token of its own)."""
        for memory in self.memories.values():
            if title == memory.title or title in memory.old_titles:
                return memory
        return None
