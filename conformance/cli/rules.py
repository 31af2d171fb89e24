"""``engram-conformance rules``: every rule, its level and source, and the checks that decide it."""

from __future__ import annotations

import click
from engram_conformance.reports.sanitize import shorten
from engram_conformance.spec import registry

from ..rule_index import rule_index
from . import EXIT_OK, main, subcommand
from .options import contract_option

#: How much of a statement a listing line shows (``explain RULE`` shows it whole).
STATEMENT_SHOWN = 110


@main.command("rules")
@click.option("--untested", is_flag=True, help="Only testable rules that no check decides.")
@contract_option("Whose rules.", default=registry.DEFAULT)
@subcommand
def rules_command(untested: bool, contract: str) -> int:
    """List a contract's rules, the checks that decide them, and their statements."""
    index = rule_index(contract)
    listed = 0
    for rule in index.rules.values():
        checks = sorted(index.checks.get(rule.id, []))
        if untested and (checks or not rule.testable):
            continue
        decided = (
            ", ".join(checks)
            if checks
            else ("(not testable)" if not rule.testable else "(no check)")
        )
        click.echo(f"{rule.id:11} {rule.level:8} {decided}")
        click.echo(f"{'':21}{shorten(rule.statement, STATEMENT_SHOWN)}")
        listed += 1
    if untested and not listed:
        click.echo(f"none: every testable rule of {contract} has a check that decides it")
    return EXIT_OK
