"""``engram-conformance run``: drive a target through the checks, write the reports, exit 0/1/2."""

from __future__ import annotations

import functools
import json
import math
import shlex
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from engram_conformance.reports import InvalidReport, ReportDocument, Verdict, load
from engram_conformance.reports.writer import OPTIONAL_FORMATS, write_reports_as_built

from ..exceptions import Interrupted, StartupFailed
from ..execution import DEFAULT_REPORT_DIR, EXAMPLE_DB, run_target
from ..sharding import BadShard, Shard
from ..side_by_side import WIDTH
from ..targets.eras import REQUESTS
from . import PROG, import_hypothesis_without_plugins, main, stopped_by, subcommand, unusable
from .compare import loaded
from .options import comma_separated, target_name, target_options
from .progress import progress_display
from .saying import Saying

F = TypeVar("F", bound=Callable[..., Any])
SEEDS = click.IntRange(0, 2**32 - 1)  # the range a random seed is drawn from


def _formats(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    formats = comma_separated(value)
    unknown = sorted(set(formats) - set(OPTIONAL_FORMATS))
    if unknown:
        choices = ", ".join(OPTIONAL_FORMATS)
        raise click.BadParameter(f"{', '.join(unknown)} (choose from {choices})")
    return formats


formats_option = click.option(
    "--format",
    "formats",
    multiple=True,
    metavar="FORMAT",
    callback=_formats,
    help="Also write this report: sarif (report.sarif, for code scanning). Repeatable or "
    "comma-separated; report.json, junit.xml, summary.md and report.html are always written.",
)


def report_dir_option(help: str) -> Callable[[F], F]:
    """``--report-dir``, the folder the reports are written in."""
    return click.option(
        "--report-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=DEFAULT_REPORT_DIR,
        show_default=True,
        help=help,
    )


def saying_options(command: F) -> F:
    """``-q``, ``-v`` and ``--no-color``: what the terminal is told of a report (``Saying``)."""
    options = [
        click.option(
            "-q", "--quiet", is_flag=True, help="Say only the final line and the reports."
        ),
        click.option("-v", "--verbose", is_flag=True, help="Also list the rules not applicable."),
        click.option("--no-color", is_flag=True, help="No colours, even on a terminal."),
    ]
    return functools.reduce(lambda decorated, option: option(decorated), reversed(options), command)


def _budget(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"{value} is not a number of seconds above 0")
    return value


class ShardValue(click.ParamType):
    """``--shard I/N``: the part I (from 1) of a run split into N."""

    name = "I/N"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Shard:
        if isinstance(value, Shard):
            return value
        try:
            return Shard.parse(str(value))
        except BadShard as error:
            self.fail(str(error), param, ctx)


def _writable_folder(path: Path | None, option: str) -> None:
    """BadParameter unless the run can make ``path`` (a folder) or write in it."""
    if path is None:
        return
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        problem = f"{str(path)!r} cannot be made: {str(existing)!r} is a file"
        raise click.BadParameter(problem, param_hint=f"'{option}'")
    try:  # make a folder there and remove it: os.access says yes to root on /proc
        Path(tempfile.mkdtemp(prefix=".engram-conformance-probe-", dir=existing)).rmdir()
    except OSError as error:
        problem = f"{str(existing)!r} is not writable ({error.strerror or error})"
        raise click.BadParameter(problem, param_hint=f"'{option}'") from None


@main.command("run")
@target_options
@click.option("--profile", type=click.Choice(["quick", "full"]), default="quick", show_default=True)
@click.option(
    "--era",
    type=click.Choice(REQUESTS),
    help="The MCP protocol era to speak: auto, the newest the server speaks; 2025-11-25, the "
    "initialize handshake; 2026-07-28, the per-request envelope; both, each in turn "
    "[default: the descriptor's server.era, else auto].",
)
@click.option(
    "--only",
    multiple=True,
    metavar="RULE-OR-FAMILY",
    help="Only these rules or families (repeatable, or comma-separated).",
)
@click.option("--seed", type=SEEDS, help="Seed of the generated data (default: random, reported).")
@click.option(
    "--budget",
    type=float,
    metavar="SECONDS",
    callback=_budget,
    help="Stop starting checks after this long.",
)
@report_dir_option("Where the reports go.")
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
@formats_option
@click.option(
    "--shard",
    type=ShardValue(),
    help="Run only part I of N of the run's rules (each in exactly one part, the same parts on "
    "every machine), for CI jobs side by side; give every part the same --seed, and put their "
    "report.json together with 'engram-conformance merge'.",
)
@click.option(
    "--shard-costs",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="REPORT",
    help="Balance the shards by the seconds each check took in this earlier report.json "
    "(give every shard the same one) instead of by their number of checks, and start the "
    "longest first (without it, by the report already in --report-dir).",
)
@click.option("-x", "--exitfirst", is_flag=True, help="Stop at the first rule that fails.")
@click.option(
    "--width",
    type=click.IntRange(min=1),
    default=WIDTH,
    show_default=True,
    help="How many checks run at once, each in scopes of its own (1: one after another, as "
    "-x runs them); a check that decided nothing beside others runs again alone.",
)
@click.option(
    "--lf",
    "--last-failed",
    "last_failed",
    is_flag=True,
    help="Run only the rules that failed or erred in the report already in --report-dir "
    "(every rule when it holds none).",
)
@saying_options
@subcommand
def run_command(
    target: Path | None,
    reference: bool,
    stdio: str | None,
    url: str | None,
    contract: str | None,
    profile: str,
    era: str | None,
    only: tuple[str, ...],
    seed: int | None,
    budget: float | None,
    report_dir: Path,
    baseline: Path | None,
    example_db: Path | None,
    no_example_db: bool,
    no_recheck: bool,
    formats: tuple[str, ...],
    shard: Shard | None,
    shard_costs: Path | None,
    exitfirst: bool,
    width: int,
    last_failed: bool,
    quiet: bool,
    verbose: bool,
    no_color: bool,
) -> int:
    """Run the conformance suite against a server; exit 0 (no fail), 1 (some fail) or 2."""
    import_hypothesis_without_plugins()
    from ..request import RunRequest, UnknownSelection, Unusable, ready  # the harness, now

    wanted = comma_separated(only)
    if last_failed:
        wanted = _last_failed(report_dir, wanted)
    if only and not wanted:
        raise click.BadParameter("names no rule or family", param_hint="'--only'")
    if shard is not None and seed is None:
        problem = "needs --seed: the shards of one run generate the same data (give each the same)"
        raise click.BadParameter(problem, param_hint="'--shard'")
    if shard_costs is not None and shard is None:
        raise click.BadParameter("balances shards: give --shard too", param_hint="'--shard-costs'")
    costs = None if shard_costs is None else _check_costs(shard_costs)
    request = RunRequest(
        target=target_name(target, reference, stdio, url, contract),
        contract=contract,
        profile=profile,
        only=wanted,
        seed=seed,
        budget_s=budget,
        baseline=baseline,
        example_db=None if no_example_db else example_db or report_dir / EXAMPLE_DB,
        recheck=not no_recheck,
        exitfirst=exitfirst,
        width=width,
        era=era,
        shard=shard,
        shard_costs=costs,
        check_costs=costs or _earlier_costs(report_dir),
    )
    try:
        prepared = ready(request)
    except UnknownSelection as error:
        raise click.BadParameter(str(error), param_hint="'--only'") from None
    except (Unusable, StartupFailed) as error:
        return unusable(error)
    except Interrupted as stopped:  # while the server was asked which contract it speaks
        return stopped_by(stopped)
    _writable_folder(report_dir, "--report-dir")
    _writable_folder(None if no_example_db else example_db, "--example-db")
    with progress_display(quiet=quiet) as progress:
        try:
            document = run_target(
                prepared,
                report_dir,
                command=shlex.join([PROG, *sys.argv[1:]]),
                progress=progress,
            )
        except UnknownSelection as error:  # of the contract the server was found to speak
            raise click.BadParameter(str(error), param_hint="'--only'") from None
        except (Unusable, StartupFailed) as error:
            return unusable(error)
        except Interrupted as stopped:
            return stopped_by(stopped)
    saying = Saying(quiet=quiet, verbose=verbose, color=False if no_color else None)
    return reported(document, report_dir, formats, saying)


def _check_costs(report: Path) -> dict[str, float]:
    """Check -> the seconds it took in ``report`` (``--shard-costs``); BadParameter for a file
    that is no report, or a report without its checks' timing."""
    documents = loaded((report,))
    if isinstance(documents, str):
        raise click.BadParameter(documents, param_hint="'--shard-costs'")
    timing = documents[0].run.timing
    if timing is None or not timing.checks:
        problem = f"{report} holds no timing of its checks (a report of a run that made none)"
        raise click.BadParameter(problem, param_hint="'--shard-costs'")
    return {check.check: check.time_s for check in timing.checks}


def _earlier_costs(report_dir: Path) -> dict[str, float] | None:
    """The seconds each check took in the report already in ``report_dir``, so that this run
    starts the longest first (``runner.start_order``). Read leniently and not checked against
    the report's schema, which would cost more than the order saves: a missing or broken
    report, or one of another contract, only leaves the run order as it is."""
    try:
        timed = json.loads((report_dir / "report.json").read_bytes())["run"]["timing"]["checks"]
        costs = {str(check["check"]): float(check["time_s"]) for check in timed}
    except (OSError, ValueError, LookupError, TypeError):
        return None
    return {check: seconds for check, seconds in costs.items() if math.isfinite(seconds)}


def _last_failed(report_dir: Path, wanted: tuple[str, ...]) -> tuple[str, ...]:
    """The rules that failed or erred in the report in ``report_dir`` (``--lf``); what was
    asked (every rule, or ``--only``'s) when there is none, or it holds none, which is said."""
    previous = report_dir / "report.json"
    try:
        document = load(previous)
    except (OSError, InvalidReport):
        click.echo(f"{PROG}: --lf: no report in {report_dir} to read: running every rule", err=True)
        return wanted
    failed = tuple(r.id for r in document.rules if r.verdict in (Verdict.FAIL, Verdict.ERROR))
    if not failed:
        click.echo(f"{PROG}: --lf: no rule failed in {previous}: running every rule", err=True)
        return wanted
    return failed


def reported(
    document: ReportDocument, report_dir: Path, formats: tuple[str, ...], saying: Saying
) -> int:
    """Write the reports and say the verdicts on the terminal; the run's exit code (2 when
    the reports cannot be written, or break their schema)."""
    try:
        written, invalid = write_reports_as_built(document, report_dir, formats)
    except OSError as error:
        return unusable(f"the reports cannot be written in {report_dir}: {error.strerror or error}")
    if invalid is None:
        saying.tell(document, report_dir)
    else:  # the summary alone: nothing else of the document is to be trusted
        click.echo(document.conformance.summary)
    click.echo(f"reports: {', '.join(str(path) for path in written.values())}")
    if invalid is not None:
        # a bug of the kit, not of the server: the run is kept, but no gate can read it
        rendered = ", ".join(path.name for fmt, path in written.items() if fmt != "json")
        problem = (
            f"{written['json']} breaks the report schema (a bug of engram-conformance) at "
            f"'{invalid.pointer}': {invalid.problem}; it is written as built, "
            + (f"with {rendered}" if rendered else "but no rendering of it could be made")
        )
        return unusable(" ".join(problem.split()))
    return document.exit_code
