"""Live progress of a run: a rich progress bar on a terminal, plain lines otherwise."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:  # the harness is imported when a run starts, not for --help
    from ..runner import Progress as ProgressCallback


@contextlib.contextmanager
def progress_display(*, quiet: bool = False) -> Iterator[ProgressCallback]:
    """A callback for ``runner.run``; it writes to standard error, never to standard output,
    and nothing at all when ``quiet`` (``-q``: the final line and the reports only)."""
    if quiet:
        yield lambda _check, _done, _total: None
        return
    if not sys.stderr.isatty():

        def plain(check: Any, done: int, total: int) -> None:
            click.echo(f"[{done}/{total}] {check.id}", err=True)

        yield plain
        return
    console = Console(stderr=True)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("checks", total=None)

        def live(check: Any, done: int, total: int) -> None:
            bar.update(task, description=check.id, completed=done - 1, total=total)

        yield live
