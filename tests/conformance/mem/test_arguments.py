"""A mem call is built from the server's published ``inputSchema``: each argument under the name
the schema gives it, optional ones left out, alternatives never sent together, and a call that
needs an unpublished argument refused (its rules then not applicable)."""

from __future__ import annotations

from typing import Any

import pytest
from engram_conformance.conformance.mem.arguments import NotPublished, fits, published_call


def schema(*names: str, required: tuple[str, ...] = (), **typed: str) -> dict[str, Any]:
    properties: dict[str, Any] = {name: {"type": "string"} for name in names}
    properties |= {name: {"type": kind} for name, kind in typed.items()}
    return {"type": "object", "properties": properties, "required": list(required)}


def test_published_names_are_kept() -> None:
    given = {"title": "T", "type": "bug", "content": "C", "project": "p"}
    assert published_call("mem_save", schema("title", "type", "content", "project"), given) == given


def test_an_argument_goes_under_the_usual_other_name_the_schema_publishes() -> None:
    published = schema("memory_id", hardDelete="boolean")
    sent = published_call("mem_delete", published, {"id": 4, "hard": True})
    assert sent == {"memory_id": 4, "hardDelete": True}


def test_a_session_tool_s_id_is_the_session_s() -> None:
    sent = published_call("mem_session_end", schema("session_id"), {"id": "s-1"})
    assert sent == {"session_id": "s-1"}


def test_optional_arguments_and_seed_defaults_are_left_out() -> None:
    given = {"title": "T", "content": "C", "type": "bug", "project": "p", "scope": "project"}
    assert published_call("mem_save", schema("title", "content", "type"), given) == {
        "title": "T",
        "content": "C",
        "type": "bug",
    }
    start = published_call("mem_session_start", schema("project"), {"id": "s", "project": "p"})
    assert start == {"project": "p"}


def test_a_value_of_none_is_not_sent() -> None:
    assert published_call("mem_session_end", schema("id", "summary"), {"id": None}) == {}


def test_the_sole_free_required_property_takes_the_one_unplaced_argument() -> None:
    published = schema("needle", "project", required=("needle",))
    sent = published_call("mem_search", published, {"query": "q", "project": "p"})
    assert sent == {"needle": "q", "project": "p"}


def test_two_arguments_never_share_one_published_name() -> None:
    """``hard`` and ``hard_delete`` are alternatives: the first takes the name, the second has
    nowhere to go and is refused rather than sent twice."""
    with pytest.raises(NotPublished):
        published_call(
            "mem_delete", schema("id", hard="boolean"), {"hard": True, "hard_delete": True}
        )


@pytest.mark.parametrize(
    ("published", "given"),
    [
        (schema("title", "content"), {"title": "T", "content": "C", "scope": "personal"}),
        (schema("ids_list", required=("ids_list",), other="string"), {"ids": [1, 2]}),
        (schema("needle", required=("needle",)), {"query": 7} | {"limit": 3}),
    ],
)
def test_an_argument_the_schema_does_not_publish_is_refused(
    published: dict[str, Any], given: dict[str, Any]
) -> None:
    with pytest.raises(NotPublished, match="publishes no argument for"):
        published_call("mem_search", published, given)


@pytest.mark.parametrize(
    ("declared", "value", "expected"),
    [
        ({"type": "string"}, "x", True),
        ({"type": "integer"}, True, False),
        ({"type": ["integer", "string"]}, "7", True),
        ({"type": ["integer", "string"]}, 1.5, False),
        ({}, object(), True),
        ({"type": "number"}, 3, True),
    ],
)
def test_fits_reads_type_arrays_and_untyped_schemas(
    declared: Any, value: Any, expected: bool
) -> None:
    assert fits(declared, value) is expected
