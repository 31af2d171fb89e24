"""``engram-conformance trace``: a contract's traceability table (source sentence, rule, checks,
mutants), written to ``docs/traceability/CONTRACT.md`` or checked against it."""

from __future__ import annotations

from pathlib import Path

import click
from engram_conformance.spec import registry

from .. import contracts
from ..explain import MUTATION_SCORE
from ..traceability import table
from . import EXIT_FAILED, EXIT_OK, main, subcommand, unusable
from .options import contract_option

#: Where the pages live, in a checkout of the kit.
PAGES = MUTATION_SCORE.parent / "traceability"


@main.command("trace")
@contract_option("Whose rules.", default=registry.DEFAULT)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write [default: docs/traceability/CONTRACT.md of the kit's checkout].",
)
@click.option("--check", is_flag=True, help="Exit 1 if OUTPUT differs from what would be written.")
@subcommand
def trace_command(contract: str, output: Path | None, check: bool) -> int:
    """Write the contract's traceability table: for each rule, the source sentence it rests
    on, the checks that decide it and the mutants that prove them."""
    plugin = contracts.contract(contract)
    text = table(
        contract, plugin.load_spec().rules.values(), plugin.checks().of_rule(), MUTATION_SCORE
    )
    output = output or PAGES / f"{contract}.md"
    if check:
        current = output.read_text(encoding="utf-8") if output.is_file() else None
        if current != text:
            click.echo(
                f"{output} is stale: run engram-conformance trace --contract {contract}", err=True
            )
            return EXIT_FAILED
        click.echo(f"{output} is up to date")
        return EXIT_OK
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        return unusable(f"{output}: cannot be written: {error.strerror or error}")
    click.echo(f"wrote {output}")
    return EXIT_OK
