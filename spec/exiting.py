"""How the console scripts (the kit's and the reference's) end their process once its work is done.

A Python process that exits normally tears its interpreter down object by object. The kit and
the reference hold the SDK's pydantic models, the contracts' schemas and (the kit) Hypothesis:
their teardown took 0.15 to 0.2 s after the last line was written, paid by every run of the kit
and by every stop of a server the kit waits for (``benchmarks/README.md``). So the console
scripts end with ``run_then_exit``: what a normal exit does that anyone can see (the threads
that are no daemons joined, the exit handlers run, the standard streams flushed), then
``os._exit`` with the same status. The functions the tests call (``main``) exit as before.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import NoReturn


def run_then_exit(main: Callable[[], object]) -> NoReturn:
    """Run ``main``, then end the process at once with the status its ``SystemExit`` asks for
    (as Python reads it: none is 0, a message is printed and is 1). Any other exception is
    left to Python, which prints it and exits as it always does."""
    try:
        main()
    except SystemExit as ending:
        code = ending.code
    else:
        code = None
    if code is None:
        code = 0
    elif not isinstance(code, int):
        sys.stderr.write(f"{code}\n")
        code = 1
    _exit_at_once(code)


def _exit_at_once(code: int) -> NoReturn:
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    # atexit has no public call to run its handlers; this is the one the interpreter makes
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # its reader gone (| head), or closed
            stream.flush()
    os._exit(code)
