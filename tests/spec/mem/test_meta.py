"""The meta-schemas are JSON Schema 2020-12 and hold the catalogues to their shape."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from engram_conformance.spec.mem import MemSpec
from jsonschema import Draft202012Validator

METAS = ["contract", "rules", "seed", "tools"]


def validator(spec: MemSpec, name: str) -> Draft202012Validator:
    meta = spec.registry.contents(f"urn:engram-conformance:mem:meta:{name}")
    return Draft202012Validator(meta, registry=spec.registry)


@pytest.mark.parametrize("name", METAS)
def test_each_meta_schema_is_valid_2020_12(mem_spec: MemSpec, name: str) -> None:
    meta = mem_spec.documents.catalogue(f"meta/{name}.meta.json")
    Draft202012Validator.check_schema(meta)


def test_the_shipped_files_match_their_meta_schemas(mem_spec: MemSpec) -> None:
    for name in ("contract", "rules", "seed"):
        document = mem_spec.documents.catalogue(f"{name}.json")
        assert list(validator(mem_spec, name).iter_errors(document)) == []
    for document in mem_spec.documents.lines().values():
        assert list(validator(mem_spec, "tools").iter_errors(document)) == []


def rule_like(spec: MemSpec, **changes: Any) -> dict[str, Any]:
    rule = copy.deepcopy(spec.documents.catalogue("rules.json")["rules"][0])
    rule.update(changes)
    return rule


def errors(spec: MemSpec, rule: dict[str, Any]) -> list[str]:
    document = {"families": {"DISC": "x"}, "rules": [rule]}
    return [e.message for e in validator(spec, "rules").iter_errors(document)]


def test_a_seed_source_needs_a_quote(mem_spec: MemSpec) -> None:
    rule = rule_like(mem_spec, source={"document": "seed", "section": "x"})
    assert errors(mem_spec, rule) == ["'quote' is a required property"]


def test_an_upstream_source_names_file_and_version(mem_spec: MemSpec) -> None:
    good = {"document": "upstream", "section": "internal/mcp/mcp_test.go@v1.20.0 TestX"}
    assert errors(mem_spec, rule_like(mem_spec, source=good)) == []
    by_commit = {"document": "upstream", "section": "DOCS.md@5b7db0f"}
    assert errors(mem_spec, rule_like(mem_spec, source=by_commit)) == []
    bad = {"document": "upstream", "section": "mcp_test.go TestX"}
    assert len(errors(mem_spec, rule_like(mem_spec, source=bad))) == 1


def test_untestable_rules_give_a_reason_and_only_they(mem_spec: MemSpec) -> None:
    assert errors(mem_spec, rule_like(mem_spec, testable=False))
    assert errors(mem_spec, rule_like(mem_spec, untestable_reason="because it is so"))


def test_rule_tools_are_mem_tools(mem_spec: MemSpec) -> None:
    assert errors(mem_spec, rule_like(mem_spec, tools=["engram_memory_search"]))


def test_a_tool_entry_has_every_annotation_and_a_one_line_description(mem_spec: MemSpec) -> None:
    document = copy.deepcopy(mem_spec.documents.catalogue("tools/v1.20.0.json"))
    del document["tools"][0]["annotations"]["destructiveHint"]
    document["tools"][1]["description"] = "two\nlines of words"
    messages = [e.message for e in validator(mem_spec, "tools").iter_errors(document)]
    assert len(messages) == 2
    assert any("destructiveHint" in m for m in messages)


def test_a_reconstructed_line_says_what_is_exact_and_what_not(mem_spec: MemSpec) -> None:
    document = copy.deepcopy(mem_spec.documents.catalogue("tools/v3.7.2.json"))
    del document["source"]["exact"]
    messages = [e.message for e in validator(mem_spec, "tools").iter_errors(document)]
    assert messages == ["'exact' is a required property"]
