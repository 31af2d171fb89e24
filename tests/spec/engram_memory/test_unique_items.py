"""``uniqueItems`` is decided in linear time (issue 12, finding 1) and as JSON Schema decides it.

jsonschema compares every pair of items it cannot sort (objects, mixed types): a capture at the
size bound with a few thousand citation objects held the reference's only call slot for seconds.
The spec's validator hashes each item's identity once instead."""

from __future__ import annotations

from typing import Any

import jsonschema._keywords
import jsonschema._utils
import pytest
from engram_conformance.spec.engram_memory import load, validate_arguments
from engram_conformance.spec.engram_memory._vocabulary import SpecValidator
from engram_conformance.spec.engram_memory.tool_names import CAPTURE
from hypothesis import given
from hypothesis import strategies as st

from .test_validate_arguments import capture_arguments

UNIQUE = SpecValidator({"type": "array", "uniqueItems": True})

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 1.5, -2.0])
    | st.sampled_from(["", "a", "b"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner, max_size=2)
    ),
    max_leaves=8,
)


@given(st.lists(json_values, max_size=6))
def test_it_agrees_with_jsonschemas_own_equality(items: list[Any]) -> None:
    assert UNIQUE.is_valid(items) == jsonschema._utils.uniq(items)


def test_no_pair_of_items_is_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonschema._utils, "equal", _no_comparison)
    items: list[Any] = [{"id": index, "text": "x"} for index in range(3000)] + [1, "a", None]
    assert UNIQUE.is_valid(items)
    assert not UNIQUE.is_valid([*items, {"text": "x", "id": 7}])


def test_the_first_repeat_is_named() -> None:
    [error] = UNIQUE.iter_errors([{"a": 1}, [1], {"a": 1.0}, [1]])
    assert error.message == "items 0 and 2 are equal: non-unique elements"


def test_a_capture_with_many_object_citations_is_decided_without_comparing_pairs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The attack of finding 1: items of the wrong type, which do not sort, at the bound.
    jsonschema's own uniqueness (``uniq``, pairwise for such items) is never reached."""
    spec = load()
    spec.input_validator(CAPTURE)  # built before: building checks the schema, with uniq
    monkeypatch.setattr(jsonschema._keywords, "uniq", _no_comparison)
    arguments = capture_arguments()
    component = arguments["payload"]["components"][0]
    component["citation_ids"] = [{"ref": index, "pad": "p" * 64} for index in range(256)]
    verdict = validate_arguments(CAPTURE, arguments, clock=None, spec=spec)
    assert verdict.code == "INVALID_SCHEMA"
    component["citation_ids"] = ["citation:1", "citation:2", "citation:1"]
    verdict = validate_arguments(CAPTURE, arguments, clock=None, spec=spec)
    assert (verdict.code, verdict.rule) == ("INVALID_SCHEMA", "SCHEMA-025")


def _no_comparison(*pair: Any) -> bool:
    raise AssertionError("two items were compared")
