"""``engram-conformance rules``: every rule, its level and source, and the checks that decide it."""

from __future__ import annotations

import click
from engram_conformance.spec.engram_memory import load

from .engram_memory.checks.registry import all_checks, all_per_call


@click.command("rules")
@click.option("--untested", is_flag=True, help="Only testable rules that no check decides.")
def rules_command(untested: bool) -> None:
    """List the rules and which checks decide them."""
    deciders: dict[str, list[str]] = {}
    for check in [*all_checks().values(), *all_per_call().values()]:
        for rule in check.rules:
            deciders.setdefault(rule, []).append(check.id)
    for rule in load().rules.values():
        checks = sorted(deciders.get(rule.id, []))
        if untested and (checks or not rule.testable):
            continue
        decided = (
            ", ".join(checks)
            if checks
            else ("(not testable)" if not rule.testable else "(no check)")
        )
        click.echo(f"{rule.id:11} {rule.level:8} {decided}")
