"""What the kit knows of one rule, for a spec author or a vendor reading a verdict: its statement
and level, the source sentence it rests on, the checks that decide it, its labelled examples and
the mutants that prove its checks fire (``engram-conformance explain RULE``).

The mutants are read from the kill matrix, ``docs/mutation-score.md``, which lives in the kit's
repository: an install from a wheel has none, and says where to look.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: The kill matrix of a checkout of the kit (an editable install); absent from a wheel.
MUTATION_SCORE = Path(__file__).resolve().parents[1] / "docs" / "mutation-score.md"
#: A mutant's row of the kill matrix: number, name, its test, description, rules broken.
_MUTANT_ROW = re.compile(
    r"^\| \d+ \| (?P<name>[^<|]+)<br>`(?P<test>[^`|]*)`[^|]*\| [^|]*\| (?P<rules>[^|]*) \|"
)


def explain(
    contract: str, rule: Any, checks: Iterable[str], examples: Iterable[Any], matrix: Path
) -> str:
    """``contract``'s rule's explanation as plain text (``examples``: the spec's labelled
    examples that name it; ``matrix``: the kill matrix to read its mutants from)."""
    lines = [f"{rule.id} ({rule.level}): {rule.statement}", ""]
    source = f"{rule.source_document} {rule.source_section}".strip()
    lines.append(f"Rests on: {source}")
    if getattr(rule, "source_quote", None):
        lines.append(f'  "{rule.source_quote}"')
    if not rule.testable:
        lines.append(f"Not testable: {rule.untestable_reason}")
    tools = getattr(rule, "tools", ()) or ()
    if tools:
        lines.append(f"Tools: {', '.join(tools)}")
    decided = sorted(checks)
    lines.append(f"Checks: {', '.join(decided) if decided else 'none'}")
    named = [example for example in examples if getattr(example, "rule", None) == rule.id]
    if named:
        lines.append(f"Labelled examples ({len(named)}):")
        lines += [f"  {example.tool}: {example.name}: {example.description}" for example in named]
    lines.append(_mutants(contract, rule.id, matrix))
    if getattr(rule, "notes", None):
        lines.append(f"Notes: {rule.notes}")
    return "\n".join(lines) + "\n"


def _mutants(contract: str, rule_id: str, matrix: Path) -> str:
    names = mutants_of(contract, rule_id, matrix)
    if names is None:
        return "Mutants: see docs/mutation-score.md in the kit's repository (not installed here)"
    if not names:
        return "Mutants: none breaks this rule alone or with others in the kill matrix"
    return f"Mutants that prove it ({len(names)}): {', '.join(names)}"


def mutants_of(contract: str, rule_id: str, matrix: Path) -> list[str] | None:
    """The mutants of the kill matrix ``matrix`` that break ``contract``'s rule ``rule_id``
    (None: no matrix). Rule ids are each contract's own (both have an ERR-005): a mutant is
    the contract's whose test is in its folder, ``tests/mutants/<package>/``."""
    try:
        text = matrix.read_text(encoding="utf-8")
    except OSError:
        return None
    folder = f"tests/mutants/{contract.replace('-', '_')}/"
    return [
        row.group("name").strip()
        for row in map(_MUTANT_ROW.match, text.splitlines())
        if row is not None
        and row.group("test").startswith(folder)
        and rule_id in re.split(r"[,\s]+", row.group("rules"))
    ]
