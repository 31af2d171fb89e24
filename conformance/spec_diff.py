"""Two versions of a contract's spec compared (``engram-conformance spec diff OLD NEW``): the
rules added, removed or changed (statement, level, tools, testability) and the tools added,
removed or whose input schema changed, for a spec author's change log or review."""

from __future__ import annotations

import json
from typing import Any

#: What of a rule a change of is told.
_RULE_FIELDS = ("level", "statement", "tools", "testable")


def spec_diff(old: Any, new: Any) -> str:
    """The changes from ``old`` to ``new`` (two loaded specs of one contract), as Markdown."""
    sections = [
        (
            "Rules added",
            [f"- {r.id} ({r.level}): {r.statement}" for r in _added(old.rules, new.rules)],
        ),
        (
            "Rules removed",
            [f"- {r.id} ({r.level}): {r.statement}" for r in _added(new.rules, old.rules)],
        ),
        ("Rules changed", _changed_rules(old.rules, new.rules)),
        ("Tools added", [f"- {name}" for name in new.tools if name not in old.tools]),
        ("Tools removed", [f"- {name}" for name in old.tools if name not in new.tools]),
        ("Input schemas changed", _changed_schemas(old, new)),
    ]
    lines: list[str] = []
    for title, items in sections:
        if items:
            lines += ["", f"## {title} ({len(items)})", "", *items]
    return ("\n".join(lines).lstrip("\n") if lines else "No change.") + "\n"


def _added(before: dict[str, Any], after: dict[str, Any]) -> list[Any]:
    return [rule for rule_id, rule in after.items() if rule_id not in before]


def _changed_rules(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    lines = []
    for rule_id, rule in after.items():
        was = before.get(rule_id)
        if was is None:
            continue
        for name in _RULE_FIELDS:
            then, now = getattr(was, name, None), getattr(rule, name, None)
            if then != now:
                lines.append(f"- {rule_id} {name}: {_shown(then)} → {_shown(now)}")
    return lines


def _changed_schemas(old: Any, new: Any) -> list[str]:
    return [
        f"- {name}"
        for name, tool in new.tools.items()
        if name in old.tools and _schema(old, old.tools[name]) != _schema(new, tool)
    ]


def _schema(spec: Any, tool: Any) -> str:
    schema = tool.input_schema
    if isinstance(schema, str) and hasattr(spec, "schema"):  # a reference into the spec's files
        schema = spec.schema(schema)
    return json.dumps(schema, sort_keys=True, default=str)


def _shown(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) or "none"
    return str(value)
