"""load(): the mem spec as typed objects, and the upstream facts its version lines must hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engram_conformance.spec.mem import MemSpec, SpecFileError, load

SEED_TOOLS = {
    "mem_save", "mem_search", "mem_context", "mem_suggest_topic_key", "mem_update",
    "mem_delete", "mem_session_start", "mem_session_summary", "mem_session_end",
    "mem_capture_passive", "mem_judge", "mem_current_project",
}  # fmt: skip
V1_7_0 = {
    "mem_search", "mem_save", "mem_update", "mem_suggest_topic_key", "mem_delete",
    "mem_save_prompt", "mem_context", "mem_stats", "mem_timeline", "mem_get_observation",
    "mem_session_summary", "mem_session_start", "mem_session_end", "mem_capture_passive",
}  # fmt: skip
ADDED_BY_V1_20_0 = {
    "mem_review", "mem_pin", "mem_unpin", "mem_merge_projects", "mem_current_project",
    "mem_doctor", "mem_judge", "mem_compare",
}  # fmt: skip


def test_identity_lines_and_tool_index(mem_spec: MemSpec) -> None:
    assert mem_spec.contract["identity"]["contract"] == "mem"
    assert list(mem_spec.lines) == ["v1.7.0", "v1.20.0", "v3.7.2"]
    assert set(mem_spec.lines["v1.7.0"].tools) == V1_7_0
    assert set(mem_spec.lines["v1.20.0"].tools) == V1_7_0 | ADDED_BY_V1_20_0
    assert set(mem_spec.lines["v3.7.2"].tools) == V1_7_0 | ADDED_BY_V1_20_0 | {"mem_list_projects"}
    assert set(mem_spec.seed_tools) == SEED_TOOLS
    assert set(mem_spec.tools) == set(mem_spec.lines["v3.7.2"].tools), "the union of the lines"


def test_a_tool_is_described_by_the_newest_line_that_lists_it(mem_spec: MemSpec) -> None:
    search = mem_spec.tool("mem_search")
    assert search.lines == ("v1.7.0", "v1.20.0", "v3.7.2")
    assert search.input_schema == mem_spec.lines["v3.7.2"].tools["mem_search"].input_schema
    assert mem_spec.tool("mem_judge").lines == ("v1.20.0", "v3.7.2")
    assert mem_spec.tool("mem_judge").seed and not mem_spec.tool("mem_stats").seed
    with pytest.raises(KeyError, match="unknown tool 'mem_forget'"):
        mem_spec.tool("mem_forget")


def test_upstream_interface_facts(mem_spec: MemSpec) -> None:
    """Facts read from upstream's mcp.go (v1.7.0, v1.20.0), checked one by one."""
    old, seed_era = mem_spec.lines["v1.7.0"].tools, mem_spec.lines["v1.20.0"].tools
    assert old["mem_save"].required == ("title", "content")
    assert seed_era["mem_save"].required == ("title",)
    assert old["mem_delete"].properties == {
        "id": {"type": "number"},
        "hard_delete": {"type": "boolean"},
    }
    assert seed_era["mem_delete"].annotations["destructiveHint"] is True
    assert "limit" in old["mem_context"].properties
    assert "limit" not in seed_era["mem_context"].properties
    assert set(seed_era["mem_judge"].required) == {"judgment_id", "relation"}
    assert seed_era["mem_current_project"].properties == {}
    assert old["mem_session_start"].required == ("id", "project")
    assert seed_era["mem_session_start"].required == ("id",)
    assert {t.name for t in seed_era.values() if t.profile == "admin"} == {
        "mem_delete", "mem_stats", "mem_timeline", "mem_merge_projects",
    }  # fmt: skip
    assert {t.name for t in seed_era.values() if not t.defer_loading} == {
        "mem_search", "mem_save", "mem_save_prompt", "mem_context", "mem_get_observation",
        "mem_session_summary", "mem_current_project", "mem_judge", "mem_compare",
    }  # fmt: skip


def test_schemas_are_as_upstream_publishes_them(mem_spec: MemSpec) -> None:
    """Only string, number and boolean properties, no enums, no additionalProperties, and every
    annotation explicit; the descriptions are one line each (this kit's own)."""
    for line in mem_spec.lines.values():
        for tool in line.tools.values():
            assert set(tool.input_schema) == {"type", "properties", "required"}
            for prop in tool.properties.values():
                assert set(prop) == {"type"}
                assert prop["type"] in {"string", "number", "boolean"}
            assert set(tool.annotations) == {
                "title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint",
            }  # fmt: skip
            assert tool.annotations["openWorldHint"] is False
            assert "\n" not in tool.description


def test_v3_7_2_marks_what_is_reconstructed(mem_spec: MemSpec) -> None:
    v3 = mem_spec.lines["v3.7.2"]
    assert not v3.exact and mem_spec.lines["v1.20.0"].exact
    delete = v3.tools["mem_delete"]
    assert "expected_project" in delete.required
    assert delete.reconstructed("/inputSchema/properties/expected_project")
    assert not delete.reconstructed("/inputSchema/properties/hard_delete")
    context = v3.tools["mem_context"]
    assert context.evidence["/inputSchema/properties/max_bytes"].evidence == "fixture"
    assert not context.reconstructed("/inputSchema/properties/max_bytes")
    listing = v3.tools["mem_list_projects"]
    assert listing.reconstructed("") and listing.reconstructed("/annotations/readOnlyHint")


def test_rules_offer_what_the_harness_core_reads(mem_spec: MemSpec) -> None:
    assert 60 <= len(mem_spec.rules) <= 120
    for rule in mem_spec.rules.values():
        assert rule.id.startswith(rule.family + "-")
        assert rule.level in {"must", "should", "profile"}
        assert rule.source_document in {"seed", "upstream", "design"}
        assert rule.source_section and rule.statement and rule.tools
        assert set(rule.tools) <= set(mem_spec.tools)
        assert rule.testable == (rule.untestable_reason is None)
    levels = {rule.level for rule in mem_spec.rules.values()}
    assert levels == {"must", "should", "profile"}


def test_seed_divergences_stand_at_should_and_name_upstream(mem_spec: MemSpec) -> None:
    """The points of gentleman-engram-latest.md §12 are all there, each a should rule (but its
    project-argument row, which the seed does not back: seed 003's mem_save has no project)."""
    divergent = [rule for rule in mem_spec.rules.values() if rule.divergence]
    assert all(rule.level == "should" and rule.source_document == "seed" for rule in divergent)
    words = " ".join(rule.divergence or "" for rule in divergent)
    for point in ("hard_delete", "scope=personal", "judgment_id", "Key Learnings",
                  "Suggested topic_key", "requires id", "same scope", "global",
                  "404"):  # fmt: skip
        assert point in words, point


def test_the_worked_example_and_window_are_rules(mem_spec: MemSpec) -> None:
    statements = " ".join(rule.statement for rule in mem_spec.rules.values())
    assert "architecture/auth-middleware-design" in statements
    assert "15 minutes" in statements
    assert "-32602" in statements


def test_a_broken_file_raises_spec_file_error_naming_it(mem_spec_copy: Path) -> None:
    path = mem_spec_copy / "rules.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["rules"][0]["level"] = "maybe"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(SpecFileError) as raised:
        load(mem_spec_copy)
    assert (str(raised.value.path), raised.value.pointer) == ("rules.json", "/rules/0/level")


def test_load_is_cached_per_folder(mem_spec_copy: Path) -> None:
    assert load() is load()
    assert load(mem_spec_copy) is load(str(mem_spec_copy))
    assert load(mem_spec_copy) is not load()
