"""Servers of the suite started from a prewarmed interpreter (``zygote.py``, ``stub.py``).

The suite starts hundreds of server processes, and each used to pay about a second of CPU for
its imports (the ``mcp`` SDK above all) before its first answer: a third of the suite's CPU
(issue 25, item 2). ``commands_prewarmed`` makes every server a run of the harness starts in a
test worker a fork of one zygote that has imported them, reached through a stub that stands for
it: a real process on real pipes, in its own folder and environment, started, signalled and
stopped by the harness's own code as any server is. Only what would otherwise run this Python
(``python script.py``, ``python -m module``, a console script of this environment) is started
so; anything else, and anything the zygote refuses, runs as it is.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.targets import processes

from .shebang import is_script_of_this_python

HERE = Path(__file__).resolve().parent
#: How long the zygote may take to import what it prewarms.
READY_TIMEOUT_S = 60.0


class Zygote:
    """A running ``zygote.py`` listening at ``socket_path``."""

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self._process = subprocess.Popen(
            [sys.executable, str(HERE / "zygote.py"), str(socket_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def ready(self) -> bool:
        """Whether it says it accepts connections within ``READY_TIMEOUT_S`` (False if it
        ended or stayed silent: the servers then start as processes of their own)."""
        assert self._process.stdout is not None
        said, _, _ = select.select([self._process.stdout], [], [], READY_TIMEOUT_S)
        return bool(said) and self._process.stdout.readline() == b"ready\n"

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` through the stub when it would run this Python, else ``argv`` as it is. A
        program named without a folder (``engram-reference``) is looked up on the ``PATH``."""
        found = shutil.which(argv[0]) if argv and os.sep not in argv[0] else None
        named = [found, *argv[1:]] if found else list(argv)
        if not runs_this_python(named):
            return list(argv)
        return [sys.executable, "-S", str(HERE / "stub.py"), str(self.socket_path), *named]

    def stop(self) -> None:
        self._process.kill()
        self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()


def runs_this_python(argv: Sequence[str]) -> bool:
    """Whether ``argv`` starts this interpreter, directly or by a console script of its own."""
    if not argv:
        return False
    return argv[0] == sys.executable or is_script_of_this_python(Path(argv[0]))


@contextlib.contextmanager
def commands_prewarmed(folder: Path) -> Iterator[Zygote | None]:
    """While inside, the harness's servers (``processes.spawn`` and ``spawn_detached``) start
    from a zygote whose socket is in ``folder``; None (and nothing changed) if it would not
    start."""
    zygote = Zygote(folder / "zygote.sock")
    try:
        with pytest.MonkeyPatch.context() as patch:
            if zygote.ready():
                patch.setattr(processes, "spawn", _through(zygote, processes.spawn))
                patch.setattr(
                    processes, "spawn_detached", _through(zygote, processes.spawn_detached)
                )
                yield zygote
            else:
                yield None
    finally:
        zygote.stop()


def _through(zygote: Zygote, spawn: Callable[..., Any]) -> Callable[..., Any]:
    def spawned(command: Sequence[str], *arguments: Any, **options: Any) -> Any:
        return spawn(zygote.command(command), *arguments, **options)

    return spawned
