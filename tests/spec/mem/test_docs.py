"""markdown(): the committed mem reference is what the spec generates, trace included."""

from __future__ import annotations

import re
from pathlib import Path

from engram_conformance.spec.mem import MemSpec
from engram_conformance.spec.mem.docs import EXCERPT, markdown

COMMITTED = Path(__file__).resolve().parents[3] / "docs" / "spec" / "mem.md"


def test_committed_reference_is_up_to_date(mem_spec: MemSpec) -> None:
    assert COMMITTED.read_text(encoding="utf-8") == markdown(mem_spec), (
        "docs/spec/mem.md is stale: regenerate it from spec/mem/ with docs.markdown(load())"
    )


def test_reference_names_every_tool_line_and_rule(mem_spec: MemSpec) -> None:
    text = markdown(mem_spec)
    for name in [*mem_spec.tools, *mem_spec.lines, *mem_spec.rules]:
        assert name in text
    for rule in mem_spec.rules.values():
        if rule.divergence:
            assert f"Upstream: {rule.divergence}." in text


def trace_rows(text: str) -> list[list[str]]:
    section = text.split("## Trace: seed 003 to rules", 1)[1]
    rows = [line for line in section.splitlines() if re.match(r"^\| S[0-9]{2} \|", line)]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


def test_the_trace_has_every_statement_in_order_with_its_rules(mem_spec: MemSpec) -> None:
    rows = trace_rows(markdown(mem_spec))
    assert [row[0] for row in rows] == [s.id for s in mem_spec.statements]
    trace = mem_spec.trace()
    for statement_id, _section, excerpt, rules in rows:
        assert rules, f"{statement_id} has no rule"
        assert rules.split(", ") == list(trace[statement_id])
        assert len(excerpt) <= EXCERPT + 2  # an escaped pipe may add characters
    assert all(set(mem_spec.rules) >= set(ids) for ids in trace.values())


def test_every_seed_quote_lands_in_the_trace(mem_spec: MemSpec) -> None:
    traced = {rule for ids in mem_spec.trace().values() for rule in ids}
    quoting = {rule.id for rule in mem_spec.rules.values() if rule.source_quote}
    assert traced == quoting
    assert {r.id for r in mem_spec.rules.values() if r.level == "must"} <= traced
