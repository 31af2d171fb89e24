"""Every labelled invalid argument example breaks exactly one thing (issue 29): put back, at the
example's ``pointer``, what a valid example of its tool holds there (or remove it, where the
valid example has nothing), and the contract accepts the arguments. An example that broke two
things at once could be refused for the other one, and prove nothing of its rule."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from engram_conformance.spec.engram_memory import load, validate_arguments, wall_clock_ms

SPEC = load()
INVALID = [example for example in SPEC.examples if example.rule is not None]


def _valid(tool: str) -> list[Any]:
    return [e.arguments for e in SPEC.examples if e.tool == tool and e.rule is None]


_ABSENT = object()


def _parts(pointer: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]


def _at(document: Any, parts: list[str]) -> Any:
    for part in parts:
        try:
            document = document[int(part) if isinstance(document, list) else part]
        except (KeyError, IndexError, ValueError, TypeError):
            return _ABSENT
    return document


def _put_back(document: Any, parts: list[str], value: Any) -> Any:
    """``document`` with ``value`` at ``parts`` (removed there when ``_ABSENT``)."""
    if not parts:
        return value
    restored = copy.deepcopy(document)
    parent = _at(restored, parts[:-1])
    key: Any = int(parts[-1]) if isinstance(parent, list) else parts[-1]
    if value is _ABSENT:
        if isinstance(parent, list) or key in parent:
            del parent[key]
    else:
        parent[key] = value
    return restored


def test_every_tool_has_invalid_examples() -> None:
    assert {example.tool for example in INVALID} == set(SPEC.tools)
    assert len(INVALID) >= 300


@pytest.mark.parametrize("example", INVALID, ids=[f"{e.tool}:{e.name}" for e in INVALID])
def test_the_example_with_its_one_broken_part_put_back_is_accepted(example: Any) -> None:
    parts = _parts(example.pointer)
    clock = wall_clock_ms if example.clock_dependent else None  # a time in the past, say
    assert not validate_arguments(example.tool, example.arguments, clock=clock).ok
    refusals = []
    for valid in _valid(example.tool):
        restored = _put_back(example.arguments, parts, _at(valid, parts))
        verdict = validate_arguments(example.tool, restored, clock=clock)
        if verdict.ok:
            return
        refusals.append(verdict.rule)
    pytest.fail(f"{example.name}: still refused with {example.pointer} put back: {refusals}")
