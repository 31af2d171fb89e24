"""``spec.exiting``: a console script's process ends at once, but as a normal exit would be seen:
its status, its output flushed, its exit handlers run, its threads that are no daemons joined."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest


def ended(body: str) -> subprocess.CompletedProcess[str]:
    """A Python process whose ``main`` is ``body``, run by ``run_then_exit``, its output piped
    and buffered (so that what is not flushed is lost)."""
    script = textwrap.dedent(
        """
        import atexit, sys, threading, time
        from engram_conformance.spec.exiting import run_then_exit

        def main():
        {body}

        run_then_exit(main)
        """
    ).format(body=textwrap.indent(textwrap.dedent(body), "    "))
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    command = [sys.executable, "-c", script]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize(
    ("ending", "code", "stderr"),
    [
        ("return 7", 0, ""),
        ("sys.exit()", 0, ""),
        ("sys.exit(3)", 3, ""),
        ("sys.exit('the reason')", 1, "the reason\n"),
    ],
)
def test_the_status_is_the_one_python_would_give(ending: str, code: int, stderr: str) -> None:
    done = ended(f"print('written', end='')\n{ending}")
    assert (done.returncode, done.stdout, done.stderr) == (code, "written", stderr)


def test_exit_handlers_run_and_their_output_is_flushed() -> None:
    done = ended("atexit.register(lambda: print('handled', end=''))")
    assert (done.returncode, done.stdout) == (0, "handled")


def test_threads_that_are_no_daemons_end_first() -> None:
    body = """
    def late():
        time.sleep(0.2)
        print('thread done', end='')
    threading.Thread(target=late).start()
    """
    done = ended(body)
    assert (done.returncode, done.stdout) == (0, "thread done")


def test_another_exception_is_left_to_python() -> None:
    done = ended("raise RuntimeError('broken')")
    assert done.returncode == 1
    assert "RuntimeError: broken" in done.stderr
