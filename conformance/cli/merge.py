"""``engram-conformance merge SHARD_REPORT...``: the report.json files of a run's shards
(``run --shard I/N``) as the one report of the whole run (``shard_merge``), written and said as
``run`` writes and says a run's, with the exit code ``run`` would give."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from . import PROG, main, subcommand, unusable
from .compare import loaded
from .run import formats_option, report_dir_option, reported, saying_options
from .saying import Saying


@main.command("merge")
@click.argument(
    "reports", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@report_dir_option("Where the merged reports go, with the shards' transcripts and reproductions.")
@formats_option
@saying_options
@subcommand
def merge_command(
    reports: tuple[Path, ...],
    report_dir: Path,
    formats: tuple[str, ...],
    quiet: bool,
    verbose: bool,
    no_color: bool,
) -> int:
    """Merge the report.json of every shard of one run into its report; exit as run would."""
    from ..shard_merge import NotMergeable, copy_evidence, merged  # the harness's, now

    documents = loaded(reports)
    if isinstance(documents, str):
        return unusable(documents)
    try:
        document = merged(
            [(str(path), document) for path, document in zip(reports, documents, strict=True)],
            command=shlex.join([PROG, *sys.argv[1:]]),
        )
    except NotMergeable as refused:
        return unusable(refused)
    try:
        copy_evidence([path.parent for path in reports], report_dir)
    except OSError as error:
        return unusable(f"the shards' evidence cannot be copied into {report_dir}: {error}")
    saying = Saying(quiet=quiet, verbose=verbose, color=False if no_color else None)
    return reported(document, report_dir, formats, saying)
