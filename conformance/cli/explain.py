"""``engram-conformance explain RULE``: a rule's statement, source, checks, examples and mutants."""

from __future__ import annotations

import click
from engram_conformance.spec import registry

from ..explain import MUTATION_SCORE, explain
from ..rule_index import rule_index
from . import EXIT_OK, main, subcommand, unusable
from .options import contract_option


@main.command("explain")
@click.argument("rule_id", metavar="RULE")
@contract_option("Whose rule (default: every contract that has a rule of that id).")
@subcommand
def explain_command(rule_id: str, contract: str | None) -> int:
    """Explain RULE: its statement and level, the source sentence it rests on, the checks that
    decide it, its labelled examples and the mutants that prove them."""
    rule_id = rule_id.upper()
    found = 0
    for name in [contract] if contract else registry.names():
        index = rule_index(name)
        rule = index.rules.get(rule_id)
        if rule is None:
            continue
        deciders = index.checks.get(rule_id, [])
        click.echo(("\n" if found else "") + f"{name}: ", nl=False)
        click.echo(explain(name, rule, deciders, index.examples, MUTATION_SCORE), nl=False)
        found += 1
    if found:
        return EXIT_OK
    where = f"the {contract} contract" if contract else "any contract"
    return unusable(f"{rule_id}: no rule of {where} has this id (see 'engram-conformance rules')")
