"""A contract's rule index: what ``engram-conformance rules`` and ``explain`` print of each rule
(statement, level, source, tools, the checks that decide it, its labelled examples), generated
into a JSON file that the contract's registration names (``Registration.rule_index``).

Those two commands read that one file instead of loading the spec (a validation of every schema)
and importing every check module (and with them ``mcp`` and Hypothesis): they start in a fraction
of the time. ``tests/conformance/test_rule_index.py`` keeps each file equal to what loading and
importing give; ``python -m engram_conformance.conformance.rule_index`` writes them again. A
contract whose registration names no index (a third party's) is read by loading and importing,
as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from engram_conformance.spec import registry

#: The fields of a rule the index keeps: those ``rules`` and ``explain`` print.
RULE_FIELDS = (
    "id",
    "level",
    "statement",
    "source_document",
    "source_section",
    "source_quote",
    "testable",
    "untestable_reason",
    "tools",
    "notes",
)
#: The fields of a labelled example the index keeps.
EXAMPLE_FIELDS = ("rule", "tool", "name", "description")


@dataclass(frozen=True)
class IndexedRule:
    id: str
    level: str
    statement: str
    source_document: str
    source_section: str
    source_quote: str | None
    testable: bool
    untestable_reason: str | None
    tools: tuple[str, ...]
    notes: str


@dataclass(frozen=True)
class IndexedExample:
    rule: str
    tool: str
    name: str
    description: str


@dataclass(frozen=True)
class RuleIndex:
    """A contract's rules in the spec's order, the checks deciding each (scripted first, as
    ``Checks.of_rule`` gives them) and the labelled examples that name a rule."""

    rules: dict[str, IndexedRule]
    checks: dict[str, list[str]]
    examples: tuple[IndexedExample, ...]

    @classmethod
    def from_document(cls, document: dict[str, Any]) -> RuleIndex:
        return cls(
            {
                rule["id"]: IndexedRule(**{**rule, "tools": tuple(rule["tools"])})
                for rule in document["rules"]
            },
            {rule: list(checks) for rule, checks in document["checks"].items()},
            tuple(IndexedExample(**example) for example in document["examples"]),
        )


def document_of(name: str) -> dict[str, Any]:
    """The index of contract ``name`` as JSON data, from its loaded spec and imported checks."""
    from .contracts import contract

    plugin = contract(name)
    spec = plugin.load_spec()
    return {
        "contract": name,
        "rules": [_fields(rule, RULE_FIELDS) for rule in spec.rules.values()],
        "checks": plugin.checks().of_rule(),
        "examples": [
            _fields(example, EXAMPLE_FIELDS)
            for example in getattr(spec, "examples", ())
            if getattr(example, "rule", None) is not None
        ],
    }


def _fields(value: Any, names: tuple[str, ...]) -> dict[str, Any]:
    found = {name: getattr(value, name, None) for name in names}
    if "tools" in found:
        found["tools"] = list(found["tools"] or ())
        found["notes"] = found["notes"] or ""
    return found


def text_of(document: dict[str, Any]) -> str:
    """The index file's text (stable: a regenerated file differs only where the data does)."""
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def index_file(name: str) -> Path | None:
    """Where contract ``name``'s index lives (None: its registration names none)."""
    where = registry.registration(name).rule_index
    if where is None:
        return None
    package, _, resource = where.partition(":")
    return Path(str(resources.files(package) / resource))


def rule_index(name: str) -> RuleIndex:
    """Contract ``name``'s index: its file when the registration names one, else built by
    loading its spec and importing its checks."""
    path = index_file(name)
    if path is not None:
        try:
            return RuleIndex.from_document(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            pass
    return RuleIndex.from_document(document_of(name))


def write_all() -> list[Path]:
    """Write the index of every registered contract whose registration names one."""
    written = []
    for name in registry.names():
        path = index_file(name)
        if path is not None:
            path.write_text(text_of(document_of(name)), encoding="utf-8")
            written.append(path)
    return written


if __name__ == "__main__":
    import sys

    sys.stdout.writelines(f"wrote {path}\n" for path in write_all())
