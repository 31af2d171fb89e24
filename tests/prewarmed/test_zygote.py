"""A server started through the stub behaves as the same command run as it is: its streams,
arguments, folder, environment, exit code and signals, and its group dies with the stub."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from engram_conformance.conformance.targets import processes

from . import Zygote, commands_prewarmed

TIMEOUT_S = 20.0

SERVER = """\
import json, os, signal, sys
# os.write: a print here could interrupt the print of "waiting" (a reentrant call)
signal.signal(signal.SIGTERM, lambda *_: (os.write(1, b"terminated\\n"), os._exit(7)))
print(json.dumps({
    "pid": os.getpid(), "argv": sys.argv, "cwd": os.getcwd(), "name": __name__,
    "variable": os.environ.get("ZYGOTE_TEST"), "prewarmed": "mcp" in sys.modules,
    "path0": sys.path[0],
}), flush=True)
print("to stderr", file=sys.stderr, flush=True)
for line in sys.stdin:
    if line.strip() == "wait":
        print("waiting", flush=True)
        signal.pause()
    print(line.strip().upper(), flush=True)
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def zygote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Zygote]:
    started = Zygote(tmp_path_factory.mktemp("zygote") / "zygote.sock")
    try:
        assert started.ready()
        yield started
    finally:
        started.stop()


@pytest.fixture
def server(tmp_path: Path) -> Path:
    script = tmp_path / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    return script


def start(command: list[str], folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=folder,
        env={**os.environ, "ZYGOTE_TEST": "seen"},
        start_new_session=True,
    )


def waiting(zygote: Zygote, server: Path, folder: Path) -> subprocess.Popen[str]:
    """The server through the stub, once it has said it waits for a signal (for ever)."""
    process = start(zygote.command([sys.executable, str(server), "0"]), folder)
    said(process)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("wait\n")
    process.stdin.flush()
    assert process.stdout.readline() == "waiting\n"
    return process


def said(process: subprocess.Popen[str]) -> dict[str, object]:
    assert process.stdout is not None
    return dict(json.loads(process.stdout.readline()))


def test_the_forked_server_has_the_streams_arguments_folder_and_environment_of_the_command(
    zygote: Zygote, server: Path, tmp_path: Path
) -> None:
    process = start(zygote.command([sys.executable, str(server), "3"]), tmp_path)
    facts = said(process)
    out, err = process.communicate("hello\n", timeout=TIMEOUT_S)
    assert facts["pid"] != process.pid  # a fork of the zygote, not the stub become the server
    assert facts["prewarmed"] is True
    assert facts["argv"] == [str(server), "3"]
    assert facts["cwd"] == str(tmp_path)
    assert facts["name"] == "__main__"
    assert facts["variable"] == "seen"
    assert facts["path0"] == str(server.parent)
    assert out == "HELLO\n"
    assert err == "to stderr\n"
    assert process.returncode == 3


def test_a_signal_to_the_stub_reaches_the_server_and_the_stub_ends_as_it_does(
    zygote: Zygote, server: Path, tmp_path: Path
) -> None:
    process = waiting(zygote, server, tmp_path)
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=TIMEOUT_S)
    assert out == "terminated\n"  # the server's own handler ran
    assert process.returncode == 7


def test_a_server_killed_by_a_signal_ends_the_stub_by_the_same_signal(
    zygote: Zygote, server: Path, tmp_path: Path
) -> None:
    process = start(zygote.command([sys.executable, str(server), "0"]), tmp_path)
    pid = int(str(said(process)["pid"]))
    os.kill(pid, signal.SIGUSR1)  # not handled: it kills the server
    process.communicate(timeout=TIMEOUT_S)
    assert process.returncode == -signal.SIGUSR1


def test_the_servers_group_dies_with_a_killed_stub(
    zygote: Zygote, server: Path, tmp_path: Path
) -> None:
    process = waiting(zygote, server, tmp_path)
    os.killpg(process.pid, signal.SIGKILL)
    assert process.wait(timeout=TIMEOUT_S) == -signal.SIGKILL
    # Its output ends only once the server, the one process holding it, is gone (else: the
    # time-out, TimeoutExpired)
    process.communicate(timeout=TIMEOUT_S)


def test_a_command_it_will_not_fork_runs_as_it_is(
    zygote: Zygote, server: Path, tmp_path: Path
) -> None:
    # options before the script: python itself must read them
    process = start(zygote.command([sys.executable, "-B", str(server), "4"]), tmp_path)
    assert said(process)["pid"] == process.pid
    process.communicate("", timeout=TIMEOUT_S)
    assert process.returncode == 4


def test_without_the_zygote_the_stub_runs_the_command_as_it_is(
    server: Path, tmp_path: Path
) -> None:
    gone = Zygote.__new__(Zygote)
    gone.socket_path = tmp_path / "no-zygote.sock"
    process = start(gone.command([sys.executable, str(server), "5"]), tmp_path)
    facts = said(process)
    process.communicate("", timeout=TIMEOUT_S)
    assert facts["pid"] == process.pid
    assert facts["prewarmed"] is False
    assert process.returncode == 5


def test_only_what_runs_this_python_goes_through_the_stub(zygote: Zygote) -> None:
    console_script = str(Path(sys.executable).with_name("engram-reference"))
    assert zygote.command(["node", "server.js"]) == ["node", "server.js"]
    assert zygote.command([console_script, "serve"])[-2:] == [console_script, "serve"]
    assert zygote.command([console_script, "serve"])[:2] == [sys.executable, "-S"]
    # on the PATH, as the shipped descriptors name it
    assert zygote.command(["engram-reference", "serve"])[-2:] == [console_script, "serve"]


def test_a_zygote_that_cannot_listen_leaves_the_servers_as_they_were(tmp_path: Path) -> None:
    before = processes.spawn
    with commands_prewarmed(tmp_path / "no-such-folder") as zygote:
        assert zygote is None
        assert processes.spawn is before
