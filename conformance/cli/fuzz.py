"""``engram-conformance fuzz``: a campaign of a contract's state machine under HypoFuzz, in
several worker processes sharing one example database (a folder, or Redis for workers on
several machines); exit 0 (nothing found), 1 (a failing example found) or 2."""

from __future__ import annotations

import importlib.util
import math
import random
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNUSABLE,
    PROG,
    import_hypothesis_without_plugins,
    main,
    stopped_by,
    subcommand,
    unusable,
)
from .options import target_name, target_options

if TYPE_CHECKING:
    from ..fuzzing import WorkerOutcome

DEFAULT_OUTPUT = Path("engram-conformance-fuzz")


def _minutes(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"{value} is not a number of minutes above 0")
    return value


@main.command("fuzz")
@target_options
@click.option(
    "--minutes",
    type=float,
    callback=_minutes,
    help="How long each contract's campaign lasts (the workers stop starting examples then).",
)
@click.option(
    "--examples",
    type=click.IntRange(min=1),
    help="How many examples each contract's campaign may run in all, shared among the workers "
    "(replays of stored failures and shrinking included).",
)
@click.option(
    "--workers", type=click.IntRange(min=1), default=1, show_default=True, help="Processes."
)
@click.option(
    "--database",
    metavar="URL-OR-FOLDER",
    help="The example database the workers share: redis://HOST:PORT/N, or a folder "
    "[default: OUTPUT/database].",
)
@click.option(
    "--output",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_OUTPUT,
    show_default=True,
    help="Where the reproductions (and the default database) are written.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**32 - 1),
    help="Worker n is seeded SEED + n (default: random, said).",
)
@subcommand
def fuzz_command(
    target: Path | None,
    reference: bool,
    stdio: str | None,
    url: str | None,
    contract: str | None,
    minutes: float | None,
    examples: int | None,
    workers: int,
    database: str | None,
    output: Path,
    seed: int | None,
) -> int:
    """Search the state machine of the target's contract (with --reference and no --contract:
    of every contract with one) under HypoFuzz, for --minutes or --examples or both; print
    each failing example found with the pytest file that replays it. A later campaign on the
    same database replays every failure first."""
    if minutes is None and examples is None:
        raise click.UsageError("give --minutes, --examples or both")
    if importlib.util.find_spec("hypofuzz") is None:
        return unusable("fuzz needs HypoFuzz: pip install 'engram-conformance[fuzz]'")
    import_hypothesis_without_plugins()
    from .. import fuzz_database, fuzzing  # the harness, now
    from ..exceptions import Interrupted, StartupFailed
    from ..request import RunRequest, Unusable

    named = target_name(target, reference, stdio, url, contract)
    database = database or str(output / "database")
    try:
        fuzz_database.opened(database)
        campaigns = [
            (aim, fuzzing.model_run(RunRequest(target=aim, contract=name)).contract.name)
            for aim, name in _campaigns(named, contract, reference)
        ]
    except (fuzz_database.DatabaseUnusable, Unusable, StartupFailed) as error:
        return unusable(error)
    seed = random.SystemRandom().randrange(2**32 - workers) if seed is None else seed
    exits = []
    for aim, name in campaigns:
        click.echo(
            f"{PROG} fuzz: {name}, {workers} worker(s), database {database}, seed {seed}, "
            + _bounds(minutes, examples)
        )
        try:
            outcomes = fuzzing.run_campaign(
                aim,
                name,
                workers=workers,
                seed=seed,
                database=database,
                seconds=None if minutes is None else minutes * 60,
                examples=examples,
                folder=output / name,
            )
        except KeyboardInterrupt:  # the workers, in the same process group, stop their servers
            return stopped_by(Interrupted(signal.SIGINT))
        exits.append(_said(name, outcomes))
    return EXIT_FAILED if EXIT_FAILED in exits else max(exits)


def _campaigns(
    named: dict[str, str], forced: str | None, reference: bool
) -> list[tuple[dict[str, str], str | None]]:
    """The campaigns to run, each a target and its contract: the target named with the
    contract named (None: the descriptor's, else the one the server lists), or, for
    ``--reference`` with no contract named, the reference server of every contract that has
    one and a state machine."""
    if forced is not None or not reference:
        return [(named, forced)]
    from engram_conformance.spec import registry

    from ..contracts import contract

    return [
        ({"reference": name}, name)
        for name in registry.names()
        if registry.registration(name).serving is not None
        and contract(name).model_check is not None
    ]


def _bounds(minutes: float | None, examples: int | None) -> str:
    said = []
    if minutes is not None:
        said.append(f"{minutes:g} min")
    if examples is not None:
        said.append(f"{examples} examples")
    return " and at most ".join(said)


def _said(contract: str, outcomes: list[WorkerOutcome]) -> int:
    """Print what the workers did and found; the exit code it makes."""
    from ..fuzzing import found_rules

    for outcome in outcomes:
        first = outcome.first_failure
        where = f"; first failure at example {first[1]} of round {first[0]}" if first else ""
        click.echo(
            f"  worker {outcome.worker}: {outcome.examples} examples in {outcome.rounds} "
            f"round(s){where}"
        )
        for error in outcome.errors:
            click.echo(f"{PROG}: worker {outcome.worker}: {error}", err=True)
    found = found_rules(outcomes)
    for rule, findings in sorted(found.items()):
        workers = ", ".join(str(worker) for worker in dict.fromkeys(w for w, _ in findings))
        shown = next((f for _, f in findings if f.reproduction is not None), findings[0][1])
        click.echo(f"{rule} {shown.verdict} ({shown.check}; worker(s) {workers})")
        click.echo(_indented(f"expected: {shown.expected}"))
        click.echo(_indented(f"observed: {shown.observed}"))
        if shown.reproduction is not None:
            click.echo(f"  reproduce: pytest {shown.reproduction}")
    examples = sum(outcome.examples for outcome in outcomes)
    click.echo(f"{contract}: {len(found)} rule(s) broken in {examples} examples")
    if found:
        return EXIT_FAILED
    return EXIT_UNUSABLE if any(outcome.errors for outcome in outcomes) else EXIT_OK


def _indented(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())
