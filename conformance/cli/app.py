"""``engram-conformance`` with every command: the console script's entry point.

The group (``cli.main``) imports no command, so that each command module imports the group to
register itself on it without an import circle; this module imports the group and them all.
"""

from __future__ import annotations

from engram_conformance.spec.exiting import run_then_exit

from . import compare, explain, fuzz, main, merge, replay, rules, run, spec, trace  # noqa: F401 - a command module registers its command

__all__ = ["console", "main"]


def console() -> None:
    """The console script: ``main``, its process ended at once (``spec.exiting``)."""
    run_then_exit(main)
