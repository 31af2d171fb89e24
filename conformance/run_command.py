"""``engram-conformance run``: drive a target through the checks, write the reports, exit 0/1/2."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click
from engram_conformance.reports.writer import OPTIONAL_FORMATS, write_reports
from engram_conformance.spec import load

from .baseline import Baseline, BaselineError
from .cli import EXIT_UNUSABLE, main
from .exceptions import StartupFailed
from .execution import run_target
from .progress import progress_display
from .reproduction import target_arguments
from .runner import RunOptions
from .target_options import chosen_descriptor, target_options
from .targets.descriptor import DescriptorError

SHOWN = 20  # rules listed on the terminal; the reports hold all
EXAMPLE_DB = "hypothesis"  # the example database's folder in the report folder, by default


def _formats(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    formats = tuple(part.strip() for item in value for part in item.split(",") if part.strip())
    unknown = sorted(set(formats) - set(OPTIONAL_FORMATS))
    if unknown:
        choices = ", ".join(OPTIONAL_FORMATS)
        raise click.BadParameter(f"{', '.join(unknown)} (choose from {choices})")
    return formats


@main.command("run")
@target_options
@click.option("--profile", type=click.Choice(["quick", "full"]), default="quick", show_default=True)
@click.option(
    "--only",
    multiple=True,
    metavar="RULE-OR-FAMILY",
    help="Only these rules or families (repeatable, or comma-separated).",
)
@click.option("--seed", type=int, help="Seed of the generated data (default: random, reported).")
@click.option(
    "--budget", type=float, metavar="SECONDS", help="Stop starting checks after this long."
)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("engram-conformance-report"),
    show_default=True,
)
@click.option(
    "--baseline", type=click.Path(dir_okay=False, path_type=Path), help="Known failures (JSON)."
)
@click.option(
    "--example-db",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the generated checks keep failing examples to try first next time "
    "[default: REPORT_DIR/hypothesis].",
)
@click.option("--no-example-db", is_flag=True, help="Keep no failing examples.")
@click.option(
    "--no-recheck",
    is_flag=True,
    help="Do not check failures again alone (flaky failures then fail the gate).",
)
@click.option(
    "--format",
    "formats",
    multiple=True,
    metavar="FORMAT",
    callback=_formats,
    help="Also write this report: sarif (report.sarif, for code scanning). Repeatable or "
    "comma-separated; report.json, junit.xml, summary.md and report.html are always written.",
)
def run_command(
    target: Path | None,
    reference: bool,
    stdio: str | None,
    url: str | None,
    profile: str,
    only: tuple[str, ...],
    seed: int | None,
    budget: float | None,
    report_dir: Path,
    baseline: Path | None,
    example_db: Path | None,
    no_example_db: bool,
    no_recheck: bool,
    formats: tuple[str, ...],
) -> None:
    """Run the conformance suite against a server; exit 0 (no fail), 1 (some fail) or 2."""
    spec = load()
    try:
        descriptor = chosen_descriptor(target, reference, stdio, url)
        known = Baseline.load(baseline, set(spec.rules)) if baseline else None
    except (DescriptorError, BaselineError) as error:
        click.echo(f"engram-conformance: {error}", err=True)
        sys.exit(EXIT_UNUSABLE)
    wanted = tuple(part.strip() for item in only for part in item.split(",") if part.strip())
    options = RunOptions(
        profile=profile,
        only=wanted,
        seed=seed,
        budget_s=budget,
        binding_mode=descriptor.binding_mode,
        example_db=None if no_example_db else example_db or report_dir / EXAMPLE_DB,
        recheck=not no_recheck,
    )
    with progress_display() as progress:
        try:
            document = run_target(
                spec,
                descriptor,
                options,
                report_dir,
                reached_by=target_arguments(target, reference, stdio, url),
                command=shlex.join(["engram-conformance", *sys.argv[1:]]),
                baseline=known,
                progress=progress,
            )
        except StartupFailed as error:
            click.echo(f"engram-conformance: {error}", err=True)
            sys.exit(EXIT_UNUSABLE)
    written = write_reports(document, report_dir, formats)
    click.echo(document["conformance"]["summary"])
    notable = [r for r in document["rules"] if r["verdict"] in ("fail", "error") or r["baseline"]]
    for rule in notable[:SHOWN]:
        reason = rule["reason"] or (rule["failures"][0]["expected"] if rule["failures"] else "")
        mark = f" ({rule['baseline']})" if rule["baseline"] else ""
        mark += " (flaky: passed when checked again alone)" if rule["flaky"] else ""
        click.echo(f"  {rule['verdict'].upper():5} {rule['id']:11}{mark} {reason}"[:160])
    if len(notable) > SHOWN:
        click.echo(f"  ... and {len(notable) - SHOWN} more in {report_dir / 'summary.md'}")
    click.echo(f"reports: {', '.join(str(path) for path in written.values())}")
    sys.exit(document["exit_code"])
