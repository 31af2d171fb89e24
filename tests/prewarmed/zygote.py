"""The zygote of prewarmed servers: ``python zygote.py SOCKET``, one per test worker.

A server process of the suite spends about a second of CPU importing the ``mcp`` SDK (the
pydantic models of both protocol eras) and the reference before it answers anything, and the
suite starts hundreds of them. This process imports all that once, then, for each ``stub.py``
that connects to ``SOCKET`` with its standard streams and a command line, forks a *keeper*,
which forks the server itself. The server takes the stub's streams, folder and environment and
runs the command's script or module as ``python`` would run it (``__main__``, ``sys.argv``,
``sys.path``), in a process group of its own; the keeper tells the stub its exit and passes on
the stub's signals, and kills the server's group when the stub dies (SIGKILL from a harness).

A command it cannot run that way (not this interpreter, options before the script, ``PYTHON*``
variables other than ``PYTHONPATH`` that differ from its own) is answered ``exec``: the stub
then runs it as it is. It prints ``ready`` once it accepts connections.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import runpy
import signal
import socket
import sys
import threading
import traceback
from pathlib import Path
from typing import Any, NoReturn

# this folder's module: the zygote runs as a script and imports nothing of the tests
from shebang import is_script_of_this_python  # type: ignore[import-not-found]

#: What every server of the suite imports, the costly part first.
PREWARMED = ("mcp", "engram_conformance.reference_impl.cli")
#: The longest request a stub sends (its command line and environment).
MAX_REQUEST = 1 << 20
#: What the names of the variables that change how ``python`` itself starts begin with: a fork
#: cannot honour them.
INTERPRETER_VARIABLE_PREFIX = "PYTHON"
#: How to run a command: ``("module" | "path", the module or script, sys.argv)``.
Plan = tuple[str, str, list[str]]


def main(socket_path: str) -> None:
    for module in PREWARMED:
        importlib.import_module(module)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the keepers are reaped by the kernel
    print("ready", flush=True)
    while True:
        connection, _ = listener.accept()
        with contextlib.suppress(OSError, ValueError):
            _serve(listener, connection)
        connection.close()


def _serve(listener: socket.socket, connection: socket.socket) -> None:
    data, fds, _, _ = socket.recv_fds(connection, MAX_REQUEST, 3)
    try:
        while not data.endswith(b"\n") and len(data) < MAX_REQUEST:
            more = connection.recv(MAX_REQUEST)
            if not more:
                return
            data += more
        request = json.loads(data)
        plan = _how_to_run(request)
        if len(fds) != 3 or plan is None or threading.active_count() != 1:
            connection.sendall(b"exec\n")
            return
        if os.fork() == 0:
            try:
                listener.close()
                _keep(connection, fds, request["cwd"], request["env"], plan)
            finally:
                os._exit(1)
    finally:
        for fd in fds:
            os.close(fd)


def _how_to_run(request: dict[str, Any]) -> Plan | None:
    """The plan of a command this process can run, else None."""
    argv = request["argv"]
    for name, value in request["env"].items():
        interpreter = name.startswith(INTERPRETER_VARIABLE_PREFIX) and name != "PYTHONPATH"
        if interpreter and os.environ.get(name) != value:
            return None
    if len(argv) >= 3 and argv[0] == sys.executable and argv[1] == "-m":
        return "module", argv[2], [argv[2], *argv[3:]]
    if len(argv) >= 2 and argv[0] == sys.executable and not argv[1].startswith("-"):
        script = Path(request["cwd"], argv[1])
        return ("path", str(script), argv[1:]) if script.is_file() else None
    if is_script_of_this_python(Path(argv[0])):
        return "path", argv[0], argv
    return None


def _keep(
    connection: socket.socket, fds: list[int], cwd: str, env: dict[str, str], plan: Plan
) -> NoReturn:
    """The keeper: starts the server, stands between it and the stub until it exits."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    server = os.fork()
    if server == 0:
        try:
            connection.close()
            _become(fds, cwd, env, plan)
        except BaseException:  # a server that could not even start: python would say why
            traceback.print_exc()
        finally:
            os._exit(1)
    for fd in fds:
        os.close(fd)
    with contextlib.suppress(OSError):
        connection.sendall(f"pid {server}\n".encode())

    def pass_signals_on() -> None:
        for line in connection.makefile("rb"):
            words = line.split()
            if words[:1] == [b"signal"]:
                with contextlib.suppress(OSError):
                    os.kill(server, int(words[1]))
        _kill_group(server)  # the stub is gone: so is its server

    threading.Thread(target=pass_signals_on, daemon=True).start()
    _, status = os.waitpid(server, 0)
    if os.WIFSIGNALED(status):
        ended = f"signal {os.WTERMSIG(status)}"
    else:
        ended = f"exit {os.WEXITSTATUS(status)}"
    with contextlib.suppress(OSError):
        connection.sendall(f"{ended}\n".encode())
    _kill_group(server)  # helpers it left in its group, as a harness's stop kills them
    os._exit(0)


def _kill_group(leader: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(leader, signal.SIGKILL)


def _become(fds: list[int], cwd: str, env: dict[str, str], plan: Plan) -> NoReturn:
    """The server: the stub's streams, folder and environment, then its command."""
    os.setpgid(0, 0)
    for stream, fd in enumerate(fds):
        os.dup2(fd, stream)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _standard_streams()
    kind, what, argv = plan
    extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    first = str(Path(what).resolve().parent) if kind == "path" else cwd
    sys.path[:] = [first, *extra, *sys.path[1:]]
    sys.argv[:] = argv
    code = _run(kind, what)
    os._exit(code)


def _standard_streams() -> None:
    encoding, errors = sys.stdout.encoding, sys.stdout.errors
    sys.stdin = open(0, encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
    sys.stderr = open(  # noqa: SIM115
        2, "w", encoding=encoding, errors="backslashreplace", buffering=1, closefd=False
    )


def _run(kind: str, what: str) -> int:
    """Run the script or module as ``__main__``; its exit code, after what ``python`` does at
    exit (wait for its threads, the ``atexit`` functions, flush the streams)."""
    code = 0
    try:
        if kind == "module":
            runpy.run_module(what, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(what, run_name="__main__")
    except SystemExit as exited:
        code = _exit_code(exited.code)
    except KeyboardInterrupt:
        _at_exit()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:  # what python prints of an uncaught exception
        traceback.print_exc()
        code = 1
    _at_exit()
    return code


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _at_exit() -> None:
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]  # python's own wait at exit
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()


if __name__ == "__main__":
    main(sys.argv[1])
