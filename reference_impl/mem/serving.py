"""How ``engram-reference serve --contract mem`` builds its server: the options of the mem
contract's reference (the dedupe window, the most learnings a passive capture saves, the
current project) and the service they make."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import click
from mcp.server.lowlevel import Server

from ..at_rest import UnsafeState
from .memories import DEFAULT_MOST_LEARNINGS
from .project import BadProject, current_project
from .server import build_server
from .service import MemService

#: upstream's default dedupe window, and the longest one taken (about 31 years)
DEFAULT_DEDUPE_WINDOW_S = 15 * 60
MAX_DEDUPE_WINDOW_S = 10**9


class Unusable(Exception):
    """The server cannot run with these options (the command says why, exit code 2)."""


UNUSABLE = Unusable
#: the serve options of this contract, outermost first (``engram-reference serve --help``)
OPTIONS = [
    click.option(
        "--dedupe-window-s",
        type=click.FloatRange(min=0, max=MAX_DEDUPE_WINDOW_S),
        default=DEFAULT_DEDUPE_WINDOW_S,
        show_default=True,
        help="mem: seconds after a memory's creation during which an identical save is "
        "absorbed into it (0: never).",
    ),
    click.option(
        "--max-learnings",
        type=click.IntRange(min=1),
        default=DEFAULT_MOST_LEARNINGS,
        show_default=True,
        help="mem: the most learnings one mem_capture_passive saves; a text of more is "
        "refused whole.",
    ),
    click.option(
        "--project",
        help="mem: the current project (mem_current_project, and calls without a project) "
        "[default: the working folder's name, lowercased].",
    ),
]
OPTION_NAMES = ("dedupe_window_s", "max_learnings", "project")


def build(
    state_dir: Path, *, dedupe_window_s: float, max_learnings: int, project: str | None
) -> tuple[Server[Any], Callable[[], None]]:
    """The MCP server of the mem tools on ``state_dir``, and what closes its store."""
    try:
        current = current_project(project, Path.cwd())
    except BadProject as error:
        raise Unusable(str(error)) from None
    except OSError as error:  # the working folder was removed
        raise Unusable(f"cannot read the working folder: {error.strerror or error}") from None
    if math.isnan(dedupe_window_s):  # the one float a range lets through
        raise Unusable("--dedupe-window-s: not a number of seconds")
    window = timedelta(seconds=dedupe_window_s) if dedupe_window_s > 0 else None
    try:
        service = MemService(state_dir, current, window, max_learnings)
    except UnsafeState as error:
        raise Unusable(str(error)) from None
    except (OSError, ValueError, sqlite3.Error) as error:
        raise Unusable(f"cannot use state folder {state_dir}: {error}") from None
    return build_server(service, on_loop=True), service.close
