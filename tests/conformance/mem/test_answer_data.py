"""The data layers of the mem reader (``answer_data``): structured content and a vendor's own JSON
are read as facts by their keys, strictly, and the descriptor's ``[answers]`` table declares the
places a vendor's own forms hold; upstream's dialects keep their precedence over a JSON text."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.mem import answers
from engram_conformance.conformance.mem.answer_text import Answer, Unreadable
from engram_conformance.conformance.mem.checks.context import MemContext
from engram_conformance.conformance.mem.checks.steps import read_or_acknowledge
from engram_conformance.conformance.mem.facts import (
    Deleted,
    Hit,
    Observation,
    Saved,
    SearchResult,
    SessionStarted,
)
from engram_conformance.conformance.mem.settings import parse
from engram_conformance.conformance.targets.descriptor import load_descriptor
from mcp_types import CallToolResult, TextContent

HIT = {"id": 4, "type": "bug", "title": "T", "scope": "project", "created_at": "c", "preview": "p"}


def test_structured_content_is_read_before_the_text() -> None:
    result = CallToolResult(
        content=[TextContent(type="text", text="Saved, thank you.")],
        structured_content={"id": 7, "title": "T", "type": "bug"},
    )
    assert answers.read("mem_save", result) == Saved(id=7, title="T", type="bug")


def test_structured_content_needs_no_text_block() -> None:
    result = CallToolResult(content=[], structured_content={"session_id": "s-9", "project": "p"})
    assert answers.read("mem_session_start", result) == SessionStarted(id="s-9", project="p")


@pytest.mark.parametrize(
    "data",
    [
        {"results": [HIT]},
        {
            "memories": [
                {key: value for key, value in HIT.items() if key != "preview"} | {"content": "p"}
            ]
        },
        {"data": {"hits": [HIT]}},
        {"memory": {"items": [HIT]}},
    ],
)
def test_a_vendor_json_text_is_read_by_its_keys(data: dict[str, object]) -> None:
    found = answers.read("mem_search", Answer(json.dumps(data)))
    assert found == SearchResult(hits=(Hit(**HIT),))


def test_camel_case_and_usual_other_names_are_fields() -> None:
    hit = {
        "memoryId": 4,
        "kind": "bug",
        "title": "T",
        "scope": "project",
        "createdAt": "c",
        "snippet": "p",
    }
    found = answers.read("mem_search", Answer("", structured={"observations": [hit]}))
    assert found == SearchResult(hits=(Hit(**HIT),))


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"id": True}, "Input should be a valid"),
        ({"id": 7.5}, "Input should be a valid"),
        ({"results": [{"id": 4}]}, "hits.0.title: Field required"),
        ({"unrelated": 1}, "names no field of Observation"),
    ],
)
def test_data_is_read_strictly_and_never_half_guessed(data: dict[str, object], why: str) -> None:
    tool = "mem_search" if "results" in data else "mem_get_observation"
    with pytest.raises(Unreadable) as raised:
        answers.read(tool, Answer("", structured=data))
    assert why in raised.value.why


@pytest.mark.parametrize("memory_id", [7, "7", "obs_1a2b", "mem-42"])
def test_a_memory_id_is_kept_as_the_server_issued_it(memory_id: object) -> None:
    """Ids are the server's: an integer or a string, sent back exactly as read."""
    found = answers.read("mem_get_observation", Answer("", structured={"id": memory_id}))
    assert isinstance(found, Observation) and found.id == memory_id


def test_a_tool_only_acknowledged_reads_any_success_as_its_empty_fact() -> None:
    """mem_delete's answer is needed only as a success (and what it shows): an answer no layer
    reads is a ``Deleted`` that knows nothing; a search's never is (its hits are its fact)."""
    ctx = cast(MemContext, SimpleNamespace(declared=lambda tool: {}))
    deleted = read_or_acknowledge(ctx, "mem_delete", Answer("Gone for good."))
    assert deleted == Deleted() and deleted.shown == "Gone for good."
    with pytest.raises(Unreadable):
        read_or_acknowledge(ctx, "mem_search", Answer("Gone for good."))
    with pytest.raises(Unreadable):
        answers.read("mem_delete", Answer("Gone for good."))


def test_a_wrapped_record_and_its_own_fields_read_as_one() -> None:
    """A vendor's hit ``{"score": .., "snippet": .., "memory": {...}}``: the memory's fields,
    the hit's own (the snippet as its preview) first."""
    memory = {"id": "obs_1", "title": "T", "type": "bugfix", "content": "full"}
    hit = {"score": 1.5, "snippet": "fu[ll]", "memory": memory}
    found = answers.read("mem_search", Answer("", structured={"results": [hit]}))
    assert found == SearchResult(
        hits=(Hit(id="obs_1", title="T", type="bugfix", preview="fu[ll]"),)
    )


def test_a_session_id_is_the_session_s_own_key() -> None:
    """``session_id`` names a session fact's id, never an observation's."""
    started = answers.read(
        "mem_session_start", Answer(json.dumps({"session_id": "s", "project": "p"}))
    )
    assert started == SessionStarted(id="s", project="p")
    with pytest.raises(Unreadable):
        answers.read("mem_save", Answer("", structured={"session_id": "s"}))


def test_upstream_s_envelope_is_read_only_through_its_text() -> None:
    """The envelope's other keys are not read on their own when its text is unreadable: they
    could contradict it."""
    text = json.dumps({"project": "p", "project_source": "git", "result": "Saved it!", "id": 3})
    with pytest.raises(Unreadable, match="does not begin with"):
        answers.read("mem_save", Answer(text))


def test_the_dialects_come_before_a_json_text() -> None:
    """A JSON text a dialect reads (mem_current_project's own object) is the dialect's reading."""
    text = json.dumps(
        {"project": "p", "project_source": "git_remote", "project_path": "/p", "cwd": "/p"}
    )
    found = answers.read("mem_current_project", Answer(text))
    assert (found.project, found.source) == ("p", "git_remote")


def test_declared_pointers_and_patterns_read_a_vendor_s_own_form() -> None:
    declared = {"id": "re:stored as #(\\d+)", "title": "re:titled (.+)$"}
    found = answers.read("mem_save", Answer("Memory stored as #42, titled Auth flow"), declared)
    assert found == Saved(id=42, title="Auth flow")
    pointed = {"id": "/outcome/record/0"}
    data = {"outcome": {"record": [43, "x"]}}
    assert answers.read("mem_save", Answer("", structured=data), pointed) == Saved(id=43)


@pytest.mark.parametrize(
    ("declared", "why"),
    [
        ({"id": "re:number (\\d+)"}, "does not match"),
        ({"id": "/nowhere"}, "is absent"),
        ({"idd": "/id"}, "declares idd, no field of Saved"),
    ],
)
def test_a_declaration_that_does_not_fit_is_unreadable(declared: dict[str, str], why: str) -> None:
    with pytest.raises(Unreadable) as raised:
        answers.read("mem_save", Answer("Memory #4", structured={"id": 4}), declared)
    assert why in raised.value.why


def test_the_descriptor_carries_its_answers_tables(tmp_path: Path) -> None:
    path = tmp_path / "vendor.toml"
    path.write_text(
        'name = "vendor"\n[server]\ntransport = "stdio"\ncommand = ["vendor-mem"]\n'
        '[answers.mem_save]\nid = "/data/id"\ntitle = "re:titled (.+)"\n'
        '[answers.mem_session_start]\nid = "/session"\n',
        encoding="utf-8",
    )
    assert set(parse(load_descriptor(path, every_settings()).tables).answers) == {
        ("mem_save", "id", "/data/id"),
        ("mem_save", "title", "re:titled (.+)"),
        ("mem_session_start", "id", "/session"),
    }
