"""What a mem tool's handler is given: the call's arguments and the server's state."""

from __future__ import annotations

from dataclasses import dataclass

from .arguments import Arguments, ToolError
from .memories import Memories
from .project import CurrentProject, normalized
from .store import Observation, Store, default_session
from .text import quoted


def not_found(observation_id: int) -> ToolError:
    """The error of an id no live memory has."""
    return ToolError(f"Observation #{observation_id} not found")


def bound(store: Store, session_id: str, project: str | None, *, missing_ok: bool = False) -> None:
    """A ``ToolError`` unless the session exists (or ``missing_ok``) and, with ``project``, is
    that project's."""
    owner = store.session_project(session_id)
    if owner is None:
        if missing_ok:
            return
        raise ToolError(f"Session {quoted(session_id)} not found")
    if project is not None and owner not in ("", project):
        raise ToolError(
            f"Session {quoted(session_id)} is not a session of project {quoted(project)}"
        )


@dataclass(frozen=True)
class Call:
    arguments: Arguments
    store: Store
    memories: Memories
    current: CurrentProject

    def project(self) -> str:
        """The ``project`` argument, trimmed and lowercased as the current project is (so that
        ``MyProj`` and ``myproj`` are one project), else the current project."""
        given = self.arguments.name("project")
        return normalized(given) if given is not None else self.current.name

    def given_session(self, project: str | None = None) -> str | None:
        """The ``session_id`` argument, which must name a session (one that
        ``mem_session_start`` began, or a project's default one): an id no session has is a
        mistake, and writing with it would invent a session. With ``project``, the session
        must be that project's: a write never joins another project's session."""
        given = self.arguments.name("session_id")
        if given is not None:
            bound(self.store, given, project)
        return given

    def session_id(self, project: str) -> str:
        """The session a write of ``project`` belongs to: the ``session_id`` argument; else the
        project's most recently started session that has not ended; else the project's default
        session, as upstream names it (``manual-save-<project>``, made on first use)."""
        implicit = default_session(project)
        given = self.given_session(project)
        return given or self.store.active_session(project, implicit) or implicit

    def live(self, observation_id: int) -> Observation:
        """A live memory, else ``not_found``."""
        memory = self.store.observation(observation_id)
        if memory is None:
            raise not_found(observation_id)
        return memory
