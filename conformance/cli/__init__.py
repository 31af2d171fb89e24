"""The ``engram-conformance`` command group, its exit codes, and the ``subcommand`` wrapper its
commands are written with.

It imports no command. Each command module registers itself on ``main`` (``@main.command``), and
``cli.app``, the console script's entry point, imports the group with every command: import
``main`` from there to have the whole command.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, ParamSpec

import click

from ..exceptions import Interrupted

#: The exit codes of the commands: 0 ok, 1 failed, 2 unusable input.
EXIT_OK, EXIT_FAILED, EXIT_UNUSABLE = 0, 1, 2
PROG = "engram-conformance"

P = ParamSpec("P")


def subcommand(command: Callable[P, int]) -> Callable[P, NoReturn]:
    """A command that returns its exit code (``EXIT_*``, or 128 + a signal's number); the
    wrapper exits with it, so that no command calls ``sys.exit``."""

    @functools.wraps(command)
    def exiting(*args: P.args, **kwargs: P.kwargs) -> NoReturn:
        click.get_current_context().exit(command(*args, **kwargs))

    return exiting


def unusable(problem: object) -> int:
    """Say ``problem`` on standard error, ``engram-conformance: PROBLEM``; the exit code of
    unusable input, for the command to return."""
    click.echo(f"{PROG}: {problem}", err=True)
    return EXIT_UNUSABLE


def stopped_by(stopped: Interrupted) -> int:
    """Say that the run was stopped by a signal; the exit code of a process it ended."""
    click.echo(f"{PROG}: {stopped}; the servers it started are stopped", err=True)
    return 128 + stopped.signal_number


class _OneLineErrors(click.Group):
    """The command group whose bad input (an unknown option, a value out of range, a missing
    file) is one line on stderr, ``engram-conformance: ...``, and exit code 2: what CI logs
    show, and what the commands' own errors look like."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.ClickException as error:
            sys.exit(unusable(_one_line(error)))
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_FAILED)
        except OSError as error:  # the reader of stdout went away (| head): stop quietly
            if error.errno != errno.EPIPE:
                raise
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_FAILED)
        sys.exit(code if isinstance(code, int) else EXIT_OK)


def _one_line(error: click.ClickException) -> str:
    message = " ".join(error.format_message().split())
    context = getattr(error, "ctx", None)
    if isinstance(error, click.UsageError) and context is not None:
        message = f"{message.rstrip('.')} (see '{context.command_path} --help')"
    return message


@click.group(cls=_OneLineErrors)
@click.version_option(package_name="engram-conformance")
def main() -> None:
    """Conformance kit for the Engram memory MCP contract."""
    # The SDK logs the faults of a misbehaving server with tracebacks; the harness reports them
    # as verdicts with evidence instead.
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    # the SDK's client session logs as "client" (a tool it cannot judge, not listed on a page)
    logging.getLogger("client").setLevel(logging.CRITICAL)


#: Hypothesis' switch for the plugins its entry points name (``hypothesis.entry_points``).
NO_PLUGINS = "HYPOTHESIS_NO_PLUGINS"


def import_hypothesis_without_plugins() -> None:
    """Import Hypothesis in the kit's own process without the plugins other packages register
    for it; the commands that run checks call it before they import the harness (the quick
    ones, ``rules`` and ``explain``, import no Hypothesis at all).

    What the kit's searches draw must not depend on what else is installed beside it (a plugin
    runs any code: it may register a strategy for a type, or a settings profile), and the
    plugins installed beside it cost every run a third of a second (trio's imports trio and
    pytest). The fuzz command registers HypoFuzz's backend itself (``campaign``). The switch
    is set for the import only: the servers the kit starts see the environment as it was.
    Where Hypothesis is already imported (the kit as a library, or the pytest plugin) that
    process's plugins stand."""
    if "hypothesis" in sys.modules:
        return
    before = os.environ.get(NO_PLUGINS)
    os.environ[NO_PLUGINS] = "1"
    try:
        import hypothesis  # noqa: F401 - imported now, without plugins, for the whole run
    finally:
        if before is None:
            del os.environ[NO_PLUGINS]
        else:
            os.environ[NO_PLUGINS] = before
