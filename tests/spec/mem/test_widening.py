"""widening(): which version lines a tools/list widens compatibly, and what breaks the others."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from engram_conformance.spec.mem import Break, MemSpec, ToolLine, widening, widenings


def listing_of(line: ToolLine) -> list[dict[str, Any]]:
    """A tools/list ``tools`` array that publishes exactly the line."""
    return [
        {
            "name": t.name,
            "inputSchema": copy.deepcopy(t.input_schema),
            "annotations": dict(t.annotations),
        }
        for t in line.tools.values()
    ]


def tool_of(listing: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(tool for tool in listing if tool["name"] == name)


def kinds(breaks: tuple[Break, ...]) -> set[tuple[str, str, str]]:
    return {(b.kind, b.tool, b.pointer) for b in breaks}


@pytest.fixture
def seed_era(mem_spec: MemSpec) -> ToolLine:
    return mem_spec.lines["v1.20.0"]


@pytest.mark.parametrize("version", ["v1.7.0", "v1.20.0", "v3.7.2"])
def test_every_line_widens_itself(mem_spec: MemSpec, version: str) -> None:
    line = mem_spec.lines[version]
    answer = widening(listing_of(line), line)
    assert answer.compatible and answer.breaks == () and answer.hint_differences == ()


def test_the_answer_covers_every_line(mem_spec: MemSpec, seed_era: ToolLine) -> None:
    answers = widenings(listing_of(seed_era), mem_spec.lines)
    assert list(answers) == list(mem_spec.lines)
    assert [v for v, a in answers.items() if a.compatible] == ["v1.20.0"]


def test_upstream_v1_20_0_dropped_arguments_of_v1_7_0(
    mem_spec: MemSpec, seed_era: ToolLine
) -> None:
    answer = widening(listing_of(seed_era), mem_spec.lines["v1.7.0"])
    assert kinds(answer.breaks) == {
        ("missing_property", "mem_capture_passive", "/inputSchema/properties/project"),
        ("missing_property", "mem_context", "/inputSchema/properties/limit"),
        ("missing_property", "mem_session_start", "/inputSchema/properties/project"),
        ("missing_property", "mem_update", "/inputSchema/properties/project"),
    }
    assert all(b.certain for b in answer.breaks)


def test_v3_7_2_newly_requires_expected_project(mem_spec: MemSpec, seed_era: ToolLine) -> None:
    answer = widening(listing_of(mem_spec.lines["v3.7.2"]), seed_era)
    assert kinds(answer.breaks) == {
        ("newly_required", "mem_delete", "/inputSchema/properties/expected_project"),
        ("newly_required", "mem_update", "/inputSchema/properties/expected_project"),
    }
    assert answer.certainly_incompatible


def test_a_break_of_a_reconstructed_fact_is_not_certain(
    mem_spec: MemSpec, seed_era: ToolLine
) -> None:
    answer = widening(listing_of(seed_era), mem_spec.lines["v3.7.2"])
    by_pointer = {(b.tool, b.pointer): b for b in answer.breaks}
    assert not by_pointer[("mem_save", "/inputSchema/properties/org")].certain
    assert not by_pointer[("mem_list_projects", "")].certain
    assert by_pointer[("mem_context", "/inputSchema/properties/max_bytes")].certain, "fixture"
    assert "reconstructed" in str(by_pointer[("mem_save", "/inputSchema/properties/org")])


def test_widening_is_allowed(seed_era: ToolLine) -> None:
    """More tools, more properties, fewer required ones, broader or absent types, a closed
    schema's opposite: all compatible."""
    listing = listing_of(seed_era)
    listing.append({"name": "mem_extra", "inputSchema": {"type": "object"}})
    judge = tool_of(listing, "mem_judge")["inputSchema"]
    judge["properties"]["ids"] = {"type": "array", "items": {"type": "number"}}
    judge["required"] = []
    search = tool_of(listing, "mem_search")["inputSchema"]
    search["properties"]["limit"] = {"type": ["number", "string"]}
    del search["properties"]["query"]["type"]
    search["additionalProperties"] = True
    tool_of(listing, "mem_delete")["inputSchema"]["properties"]["hard"] = {"type": "boolean"}
    assert widening(listing, seed_era).compatible


def test_integer_widens_to_number_but_not_back(seed_era: ToolLine) -> None:
    listing = listing_of(seed_era)
    tool_of(listing, "mem_delete")["inputSchema"]["properties"]["id"] = {"type": "integer"}
    [found] = widening(listing, seed_era).breaks
    assert (found.kind, found.pointer) == ("type_narrowed", "/inputSchema/properties/id/type")


NARROWINGS = {
    "missing tool": (
        lambda ls: ls.remove(tool_of(ls, "mem_stats")),
        ("missing_tool", "mem_stats", ""),
    ),
    "missing property": (
        lambda ls: tool_of(ls, "mem_save")["inputSchema"]["properties"].pop("topic_key"),
        ("missing_property", "mem_save", "/inputSchema/properties/topic_key"),
    ),
    "type narrowed": (
        lambda ls: tool_of(ls, "mem_save")["inputSchema"]["properties"].update(
            title={"type": "number"}
        ),
        ("type_narrowed", "mem_save", "/inputSchema/properties/title/type"),
    ),
    "enum narrowed": (
        lambda ls: tool_of(ls, "mem_save")["inputSchema"]["properties"]["scope"].update(
            enum=["project", "personal"]
        ),
        ("enum_narrowed", "mem_save", "/inputSchema/properties/scope/enum"),
    ),
    "const narrows too": (
        lambda ls: tool_of(ls, "mem_save")["inputSchema"]["properties"]["type"].update(const="x"),
        ("enum_narrowed", "mem_save", "/inputSchema/properties/type/enum"),
    ),
    "newly required": (
        lambda ls: tool_of(ls, "mem_save")["inputSchema"]["required"].append("type"),
        ("newly_required", "mem_save", "/inputSchema/properties/type"),
    ),
    "closed schema": (
        lambda ls: tool_of(ls, "mem_search")["inputSchema"].update(additionalProperties=False),
        ("additional_properties_narrowed", "mem_search", "/inputSchema/additionalProperties"),
    ),
    "restricting additional schema": (
        lambda ls: tool_of(ls, "mem_search")["inputSchema"].update(
            additionalProperties={"type": "string"}
        ),
        ("additional_properties_narrowed", "mem_search", "/inputSchema/additionalProperties"),
    ),
    "no input schema": (
        lambda ls: tool_of(ls, "mem_context").pop("inputSchema"),
        ("not_an_object_schema", "mem_context", "/inputSchema"),
    ),
}


@pytest.mark.parametrize("case", NARROWINGS)
def test_each_narrowing_is_one_named_break(seed_era: ToolLine, case: str) -> None:
    narrow, expected = NARROWINGS[case]
    listing = listing_of(seed_era)
    narrow(listing)
    answer = widening(listing, seed_era)
    assert not answer.compatible
    assert kinds(answer.breaks) == {expected}
    assert all(b.certain for b in answer.breaks)


def test_nested_schemas_are_compared(mem_spec: MemSpec) -> None:
    """Upstream's schemas are flat; a line with nested objects and arrays is compared inside."""
    nested = {"type": "object", "properties": {"a": {"type": "string"}}, "required": []}
    line_tool = {
        "name": "mem_x", "description": "A tool with nested arguments.",
        "inputSchema": {"type": "object", "required": [], "properties": {
            "filter": nested, "ids": {"type": "array", "items": {"type": "number"}},
        }},
        "annotations": {"title": "X", "readOnlyHint": True, "destructiveHint": False,
                        "idempotentHint": True, "openWorldHint": False},
        "defer_loading": False, "profile": "agent",
    }  # fmt: skip
    line = ToolLine.from_dict({"version": "v0.0.1", "source": {"evidence": "exact", "read": "x"},
                               "tools": [line_tool]})  # fmt: skip
    listed = copy.deepcopy(line_tool)
    listed["inputSchema"]["properties"]["filter"]["required"] = ["a"]
    listed["inputSchema"]["properties"]["ids"]["items"] = {"type": "integer"}
    assert kinds(widening([listed], line).breaks) == {
        ("newly_required", "mem_x", "/inputSchema/properties/filter/properties/a"),
        ("type_narrowed", "mem_x", "/inputSchema/properties/ids/items/type"),
    }


def test_a_listing_may_be_a_mapping_by_name(seed_era: ToolLine) -> None:
    by_name = {tool["name"]: tool for tool in listing_of(seed_era)}
    assert widening(by_name, seed_era).compatible


def test_hint_differences_are_reported_apart(mem_spec: MemSpec, seed_era: ToolLine) -> None:
    listing = listing_of(seed_era)
    tool_of(listing, "mem_delete")["annotations"]["destructiveHint"] = False
    del tool_of(listing, "mem_search")["annotations"]
    answer = widening(listing, seed_era)
    assert answer.compatible, "annotations are no part of compatibility"
    found = {(d.tool, d.hint, d.line, d.listed, d.certain) for d in answer.hint_differences}
    assert found == {
        ("mem_delete", "destructiveHint", True, False, True),
        ("mem_search", "readOnlyHint", True, None, True),
        ("mem_search", "destructiveHint", False, None, True),
    }
    v3 = widening(listing_of(mem_spec.lines["v3.7.2"]), mem_spec.lines["v3.7.2"])
    assert v3.hint_differences == ()
    changed = listing_of(mem_spec.lines["v3.7.2"])
    tool_of(changed, "mem_delete")["annotations"]["destructiveHint"] = False
    [difference] = widening(changed, mem_spec.lines["v3.7.2"]).hint_differences
    assert not difference.certain, "v3.7.2's annotations are carried over, not read"
