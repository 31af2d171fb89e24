"""What a mem tool's handler is given: the call's arguments and the server's state."""

from __future__ import annotations

from dataclasses import dataclass

from .arguments import Arguments, ToolError
from .memories import Memories
from .project import CurrentProject
from .store import Observation, Store
from .text import quoted


def not_found(observation_id: int) -> ToolError:
    """The error of an id no live memory has."""
    return ToolError(f"Observation #{observation_id} not found")


@dataclass(frozen=True)
class Call:
    arguments: Arguments
    store: Store
    memories: Memories
    current: CurrentProject

    def project(self) -> str:
        """The ``project`` argument, else the current project."""
        return self.arguments.text("project") or self.current.name

    def given_session(self) -> str | None:
        """The ``session_id`` argument, which must name a session (one that
        ``mem_session_start`` began, or a project's default one): an id no session has is a
        mistake, and writing with it would invent a session."""
        given = self.arguments.text("session_id")
        if given is not None and self.store.session(given) is None:
            raise ToolError(f"Session {quoted(given)} not found")
        return given

    def session_id(self, project: str) -> str:
        """The session a write of ``project`` belongs to: the ``session_id`` argument; else the
        project's most recently started session that has not ended; else the project's default
        session, as upstream names it (``manual-save-<project>``, made on first use)."""
        implicit = f"manual-save-{project}"
        return self.given_session() or self.store.active_session(project, implicit) or implicit

    def live(self, observation_id: int) -> Observation:
        """A live memory, else ``not_found``."""
        memory = self.store.observation(observation_id)
        if memory is None:
            raise not_found(observation_id)
        return memory
