"""The server processes a run starts: each in a process group of its own, stopped by its pid.

A server that ignores the end of its input (or forks helpers) must not outlive the run, however
the run ends: each process is started as the leader of a new process group, stopped by closing
its input, then SIGTERM to the group, then SIGKILL after a grace, and every process still alive
when the harness exits (an interrupted run, a harness bug) gets the same at exit (``stop_all``).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence

import anyio
from anyio.abc import Process

from .server_log import ServerLog

#: How long a server may take to exit at each step of stopping it.
STOP_GRACE_S = 2.0
#: Process groups started and not yet seen to exit (pid of the leader).
_LIVE: set[int] = set()
#: The thread copying the stderr of each process ``spawn`` started into its log, by pid.
_STDERR_COPIES: dict[int, threading.Thread] = {}


def exit_status(returncode: int | None) -> str:
    """How a process ended: ``exited with code 3``, ``was killed by signal 9 (SIGKILL)``."""
    if returncode is None:
        return "is still running"
    if returncode < 0:
        number = -returncode
        try:
            name = signal.Signals(number).name
        except ValueError:
            return f"was killed by signal {number}"
        return f"was killed by signal {number} ({name})"
    return f"exited with code {returncode}"


async def spawn(
    command: Sequence[str], env: dict[str, str], log: ServerLog, cwd: str | None = None
) -> Process:
    """``command`` with piped input and output, its stderr copied into ``log`` by a thread
    (so that no task group holds the process: any task may stop it), leading a process group
    of its own, in the folder ``cwd`` (None: the harness's). Raises OSError when it cannot
    run."""
    reading, writing = os.pipe()
    try:
        process = await anyio.open_process(
            list(command),
            env=env,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=writing,
            start_new_session=True,
        )
    except BaseException:
        os.close(reading)
        raise
    finally:
        os.close(writing)
    _LIVE.add(process.pid)
    _STDERR_COPIES[process.pid] = log.pump(os.fdopen(reading, "rb"))
    return process


async def stderr_copied(process: Process, timeout_s: float) -> None:
    """Wait, at most ``timeout_s``, until what the exited ``process`` wrote to stderr is all in
    its log (its pipe ends once no process holds it open): a tail read before would miss the
    last lines, those that say why it ended."""
    copy = _STDERR_COPIES.pop(process.pid, None)
    if copy is not None:
        await anyio.to_thread.run_sync(copy.join, timeout_s)


def spawn_detached(
    command: Sequence[str], env: dict[str, str], log: ServerLog, cwd: str | None = None
) -> subprocess.Popen[bytes]:
    """``command`` with no input and its output and error copied into ``log`` (an HTTP server
    the harness starts, then reaches by URL), leading a process group of its own, in the folder
    ``cwd`` (None: the harness's). Raises OSError when it cannot run."""
    process = subprocess.Popen(  # noqa: S603 - the target descriptor's own command
        list(command),
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    _LIVE.add(process.pid)
    log.pump(process.stdout)  # type: ignore[arg-type]
    return process


async def stop(process: Process) -> None:
    """Close the server's input, then SIGTERM its group, then SIGKILL it, until it has exited.
    Every wait is bounded; a shielded scope keeps a cancelled run from leaving it running."""
    with anyio.CancelScope(shield=True):
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            await process.stdin.aclose()  # type: ignore[union-attr]
        for stop_signal in (None, signal.SIGTERM, signal.SIGKILL):
            if stop_signal is not None:
                _signal_group(process.pid, stop_signal)
            if await _exited(process, STOP_GRACE_S):
                break
        _signal_group(process.pid, signal.SIGKILL)  # helpers it left behind in its group
        _LIVE.discard(process.pid)
        _STDERR_COPIES.pop(process.pid, None)
        with contextlib.suppress(OSError):
            await process.aclose()


def stop_detached(process: subprocess.Popen[bytes]) -> None:
    """``stop`` for a process of ``spawn_detached``."""
    for stop_signal in (signal.SIGTERM, signal.SIGKILL):
        _signal_group(process.pid, stop_signal)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_GRACE_S)
            break
    _signal_group(process.pid, signal.SIGKILL)
    _LIVE.discard(process.pid)


async def _exited(process: Process, within_s: float) -> bool:
    """Whether the process exits within ``within_s``. It polls the return code: waiting for
    the process would also wait for the end of its output, which a helper it forked may hold."""
    deadline = anyio.current_time() + within_s
    while process.returncode is None:
        if anyio.current_time() >= deadline:
            return False
        await anyio.sleep(0.02)
    return True


def _signal_group(pid: int, stop_signal: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, stop_signal)


@atexit.register
def stop_all() -> None:
    """SIGTERM, then SIGKILL, every process group a run started and did not see exit."""
    if not _LIVE:
        return
    for pid in list(_LIVE):
        _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < deadline and any(_group_alive(pid) for pid in _LIVE):
        time.sleep(0.05)
    for pid in list(_LIVE):
        _signal_group(pid, signal.SIGKILL)
    _LIVE.clear()


def _group_alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
