"""``engram-conformance diff OLD NEW`` and ``engram-conformance matrix REPORT...``: runs compared
rule by rule, and implementations side by side (``reports.compare``, ``reports.matrix``)."""

from __future__ import annotations

from pathlib import Path

import click
from engram_conformance.reports import InvalidReport, ReportDocument, load
from engram_conformance.reports.compare import NotComparable, as_text, compare
from engram_conformance.reports.matrix import as_html, as_markdown

from . import EXIT_FAILED, EXIT_OK, main, subcommand, unusable

_REPORT = click.Path(exists=True, dir_okay=False, path_type=Path)


def loaded(paths: tuple[Path, ...]) -> list[ReportDocument] | str:
    """The reports, or the one-line problem of the first that cannot be read."""
    documents = []
    for path in paths:
        try:
            documents.append(load(path))
        except InvalidReport as error:
            return f"{path}: not a report: {error}"
        except OSError as error:
            return f"{path}: cannot be read: {error.strerror or error}"
    return documents


@main.command("diff")
@click.argument("old", type=_REPORT)
@click.argument("new", type=_REPORT)
@subcommand
def diff_command(old: Path, new: Path) -> int:
    """Compare two runs' report.json: exit 1 when a rule that held now fails or errs."""
    documents = loaded((old, new))
    if isinstance(documents, str):
        return unusable(documents)
    try:
        comparison = compare(*documents)
    except NotComparable as error:
        return unusable(error)
    click.echo(as_text(comparison), nl=False)
    return EXIT_FAILED if comparison.regressed else EXIT_OK


@main.command("matrix")
@click.argument("reports", nargs=-1, required=True, type=_REPORT)
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also write the matrix as one HTML page here.",
)
@subcommand
def matrix_command(reports: tuple[Path, ...], html_path: Path | None) -> int:
    """Print, as a Markdown table, every rule's verdict in each report (one per implementation)."""
    documents = loaded(reports)
    if isinstance(documents, str):
        return unusable(documents)
    try:
        table = as_markdown(documents)
        page = as_html(documents) if html_path else None
    except NotComparable as error:
        return unusable(error)
    if html_path and page is not None:
        try:
            html_path.write_text(page, encoding="utf-8")
        except OSError as error:
            return unusable(f"{html_path}: cannot be written: {error.strerror or error}")
    click.echo(table, nl=False)
    return EXIT_OK
