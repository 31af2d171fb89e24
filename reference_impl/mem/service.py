"""The mem service: one state folder's store, and every tool's handler behind one ``call``.

A call answers a text and whether it failed. Every failure is a one-line tool error: a
``ToolError`` says what was wrong with the call; any other exception (a full disk, a locked
database, a bug) is answered ``<tool> failed: the memory store could not complete the call``, its
type and frames logged, never its message (SQLite's may quote arguments).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..at_rest import private_folder
from . import context_tool, judge_tool, read_tools, session_tools, write_tools
from .arguments import Arguments, ToolError
from .call import Call
from .memories import DEFAULT_MOST_LEARNINGS, Memories
from .project import CurrentProject
from .store import Store

logger = logging.getLogger(__name__)

Handler = Callable[[Call], str]
HANDLERS: dict[str, Handler] = {
    "mem_save": write_tools.mem_save,
    "mem_update": write_tools.mem_update,
    "mem_delete": write_tools.mem_delete,
    "mem_save_prompt": write_tools.mem_save_prompt,
    "mem_capture_passive": write_tools.mem_capture_passive,
    "mem_session_start": session_tools.mem_session_start,
    "mem_session_summary": session_tools.mem_session_summary,
    "mem_session_end": session_tools.mem_session_end,
    "mem_search": read_tools.mem_search,
    "mem_get_observation": read_tools.mem_get_observation,
    "mem_timeline": read_tools.mem_timeline,
    "mem_stats": read_tools.mem_stats,
    "mem_suggest_topic_key": read_tools.mem_suggest_topic_key,
    "mem_judge": judge_tool.mem_judge,
    "mem_current_project": read_tools.mem_current_project,
    "mem_context": context_tool.mem_context,
}


@dataclass(frozen=True)
class Answer:
    text: str
    is_error: bool


class MemService:
    """``dedupe_window``: how long a repeated save is absorbed (``None``: never);
    ``most_learnings``: the most learnings one passive capture saves."""

    def __init__(
        self,
        state_dir: Path,
        current: CurrentProject,
        dedupe_window: timedelta | None,
        most_learnings: int = DEFAULT_MOST_LEARNINGS,
    ) -> None:
        """A state folder others can use raises ``at_rest.UnsafeState``; one that cannot be
        made or opened, ``OSError`` or ``sqlite3.Error``."""
        self.store = Store(private_folder(Path(state_dir)))
        self.memories = Memories(self.store, dedupe_window, most_learnings)
        self.current = current

    def close(self) -> None:
        self.store.close()

    def call(self, tool: str, sent: Any) -> Answer:
        """The answer of a call of one of ``HANDLERS``."""
        try:
            call = Call(Arguments(sent), self.store, self.memories, self.current)
            return Answer(HANDLERS[tool](call), is_error=False)
        except ToolError as error:
            return Answer(str(error), is_error=True)
        except Exception as error:
            frames = "".join(traceback.format_tb(error.__traceback__))
            logger.error("%s failed with %s\n%s", tool, type(error).__name__, frames)
            message = f"{tool} failed: the memory store could not complete the call"
            return Answer(message, is_error=True)
