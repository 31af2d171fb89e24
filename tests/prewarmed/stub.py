"""The command a prewarmed server is started by: ``python -S stub.py SOCKET ARGV...``.

It hands its standard streams and ``ARGV`` to the zygote at ``SOCKET``, which forks a process
that has already imported the SDK and runs ``ARGV`` in it, then stands for that process: the
signals it gets are passed on, and it exits as that process exits (with its code, or killed by
its signal). When the zygote is unreachable or will not run ``ARGV`` it becomes ``ARGV`` itself
(``exec``), so a test never depends on the zygote to start its server. Only the standard library
is imported (``-S``: not even site-packages), so it starts in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys

#: The signals a harness stops a server with, passed on to the forked server.
PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def main(socket_path: str, argv: list[str]) -> None:
    # A signal that comes before the server is known waits for it, then is passed on.
    signal.pthread_sigmask(signal.SIG_BLOCK, PASSED_ON)
    try:
        zygote = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        zygote.connect(socket_path)
        folder = os.getcwd()  # noqa: PTH109 - no pathlib to import
        payload = {"argv": argv, "cwd": folder, "env": dict(os.environ)}
        socket.send_fds(zygote, [json.dumps(payload).encode() + b"\n"], [0, 1, 2])
        answers = zygote.makefile("rb")
        reply = answers.readline()
    except OSError:
        reply = b""
    if not reply.startswith(b"pid "):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, PASSED_ON)
        os.execv(argv[0], argv)
    # The forked server holds the streams now: this process keeps none of them open, or the
    # harness would never see the server's output end.
    null = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):
        os.dup2(null, stream)
    for number in PASSED_ON:
        signal.signal(number, lambda got, _frame: zygote.sendall(f"signal {got}\n".encode()))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, PASSED_ON)
    status = answers.readline().split()
    if status[:1] == [b"signal"]:
        killed_by = int(status[1])
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(killed_by, signal.SIG_DFL)
        os.kill(os.getpid(), killed_by)
    sys.exit(int(status[1]) if status[:1] == [b"exit"] else 1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
