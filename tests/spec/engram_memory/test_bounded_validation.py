"""Arguments are decided at a cost the schema bounds, not the argument's size (issue 12, finding 1).

The answer to an argument object is its first deciding failure in document order, so the
validator looks at an array's items only until one decides, and not at all when the array is
over its ``maxItems``. These tests show that it answers as the validation of every item does,
and that the errors it makes do not grow with the argument; and that the size of an argument
object is measured without writing its canonical form (in C, corrected for floats).
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
import rfc8785
from engram_conformance.spec.engram_memory import Spec, load, validate_arguments
from engram_conformance.spec.engram_memory._arguments import _canonical_size
from engram_conformance.spec.engram_memory.tool_names import CAPTURE
from engram_conformance.strategies.engram_memory.broken_arguments import broken_arguments
from hypothesis import given, settings
from hypothesis import strategies as st

from .test_validate_arguments import capture_arguments

SPEC = load()


def every_item_verdict(tool: str, arguments: Any) -> Any:
    """The verdict of the validator that validates every item of every array."""
    with mock.patch.object(Spec, "argument_validator", Spec.input_validator):
        return validate_arguments(tool, arguments, clock=None, spec=SPEC)


def verdict(tool: str, arguments: Any) -> Any:
    return validate_arguments(tool, arguments, clock=None, spec=SPEC)


def citation(index: int, **changes: Any) -> dict[str, Any]:
    value = {
        "citation_id": f"citation:{index}",
        "source_ref": "source:a",
        "locator": {"scheme": "line", "value": str(index)},
        "content_digest": "sha256:" + "0" * 64,
    }
    return {**value, **changes}


@pytest.mark.parametrize("tool", sorted(SPEC.tools))
@given(data=st.data())
@settings(max_examples=25)
def test_it_answers_as_validating_every_item(tool: str, data: st.DataObject) -> None:
    """Objects broken by one rule, and objects whose members come from two broken ones."""
    one, other = (data.draw(broken_arguments(tool, SPEC)).arguments for _ in range(2))
    mixed = {key: data.draw(st.sampled_from([one, other])).get(key, one.get(key)) for key in one}
    for arguments in (one, mixed):
        assert verdict(tool, arguments) == every_item_verdict(tool, arguments)


def test_a_failure_that_does_not_decide_lets_later_items_be_validated() -> None:
    """A malformed digest is answered after every schema failure: the second citation's missing
    field decides, although the first citation failed before it."""
    arguments = capture_arguments()
    bad_digest = citation(1, content_digest="sha256:xyz")
    missing = {key: value for key, value in citation(2).items() if key != "source_ref"}
    arguments["payload"]["citations"] = [bad_digest, missing]
    answer = verdict(CAPTURE, arguments)
    assert (answer.code, answer.pointer) == ("INVALID_SCHEMA", "/payload/citations/1/source_ref")
    assert answer == every_item_verdict(CAPTURE, arguments)
    arguments["payload"]["citations"] = [bad_digest, citation(2)]
    assert verdict(CAPTURE, arguments).code == "INVALID_DIGEST"


@pytest.mark.parametrize(
    "items",
    [
        pytest.param([{"wrong": index} for index in range(20_000)], id="over-the-bound"),
        pytest.param([{"wrong": index} for index in range(256)], id="at-the-bound"),
    ],
)
def test_the_errors_of_a_huge_array_do_not_grow_with_it(items: list[Any]) -> None:
    arguments = capture_arguments()
    arguments["payload"]["citations"] = items
    errors = list(SPEC.argument_validator(CAPTURE).iter_errors(arguments))
    every = list(SPEC.input_validator(CAPTURE).iter_errors(arguments))
    assert len(errors) <= 8 < len(every)
    assert verdict(CAPTURE, arguments).pointer.startswith("/payload/citations")


def test_an_array_over_its_bound_is_answered_by_the_bound() -> None:
    arguments = capture_arguments()
    arguments["payload"]["citations"] = [citation(index) for index in range(300)]
    answer = verdict(CAPTURE, arguments)
    assert (answer.rule, answer.pointer) == ("SCHEMA-026", "/payload/citations")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
@settings(max_examples=300)
def test_the_size_is_that_of_the_canonical_form(value: Any) -> None:
    try:
        canonical = len(rfc8785.dumps(value))
    except rfc8785.CanonicalizationError:  # integers beyond 2^53: JCS does not write them
        return
    assert _canonical_size(value) == canonical


def test_values_that_are_not_json_have_no_size() -> None:
    assert _canonical_size({"a": ["\ud800"]}) is None
    assert _canonical_size({"a": float("inf")}) is None


def test_repeats_are_not_looked_for_in_an_array_over_its_bound() -> None:
    arguments = capture_arguments()
    ids = arguments["evidence"]["citation_ids"]
    arguments["evidence"]["citation_ids"] = [ids[0]] * 300
    errors = list(SPEC.argument_validator(CAPTURE).iter_errors(arguments))
    assert [error.validator for error in errors] == ["maxItems"]
