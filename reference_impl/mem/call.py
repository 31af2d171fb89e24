"""What a mem tool's handler is given: the call's arguments and the server's state."""

from __future__ import annotations

from dataclasses import dataclass

from .arguments import Arguments, ToolError
from .memories import Memories
from .project import CurrentProject
from .store import Observation, Store


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

    def session_id(self, project: str) -> str:
        """The ``session_id`` argument, else the project's default session, as upstream names
        it (``manual-save-<project>``)."""
        return self.arguments.text("session_id") or f"manual-save-{project}"

    def live(self, observation_id: int) -> Observation:
        """A live memory, else ``not_found``."""
        memory = self.store.observation(observation_id)
        if memory is None:
            raise not_found(observation_id)
        return memory
