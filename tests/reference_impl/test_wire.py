"""Lenient reading of JSON-RPC messages: what ``wire`` sets aside and what the SDK then sees."""

from __future__ import annotations

import codecs
import contextlib
import gc
import json
import math

import pytest
from engram_conformance.reference_impl import wire
from hypothesis import given, settings
from hypothesis import strategies as st


def test_invalid_utf8_becomes_lone_surrogates_for_the_validator_to_refuse() -> None:
    assert wire.parse(b'{"q":"a\xffb"}') == {"q": "a\udcffb"}
    assert wire.parse(b'{"q":"\\ud800"}') == {"q": "\ud800"}


@pytest.mark.parametrize("data", [b"", b"nope", b"{", b"[" * 100_000 + b"]" * 99_999])
def test_what_is_not_json_text(data: bytes) -> None:
    with pytest.raises(wire.NotJson):
        wire.parse(data)


def test_a_tool_calls_arguments_are_set_aside_exactly_as_sent() -> None:
    arguments = [{"q": "\ud800"}, [[[]]]]
    message = {
        "jsonrpc": "2.0",
        "id": "\udc00",
        "method": "tools/call",
        "params": {"name": "t", "arguments": arguments, "_meta": {"k": "\ud800"}},
    }
    forwarded, sent = wire.set_aside(message)
    assert sent == wire.SentArguments(arguments)
    assert forwarded == {
        "jsonrpc": "2.0",
        "id": "\ufffd",
        "method": "tools/call",
        "params": {"name": "t", "arguments": {}, "_meta": {"k": "\ufffd"}},
    }
    assert wire.parse(wire.encode(forwarded)) == forwarded


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"arguments": 1}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}},
        [{"method": "tools/call", "params": {"arguments": 1}}],
        42,
    ],
)
def test_nothing_is_set_aside_from_other_messages(message: object) -> None:
    assert wire.set_aside(message) == (message, None)


def _nesting(value: object) -> tuple[int, object]:
    """How many lists ``value`` nests, and what the innermost one holds first."""
    depth = 0
    while isinstance(value, list):
        depth, value = depth + 1, value[0] if value else None
    return depth, value


@pytest.mark.parametrize("levels", [wire.MAX_DEPTH + 1, 500, 100_000])
def test_values_nested_past_the_limit_are_read_as_an_infinite_number(levels: int) -> None:
    """Within the standard parser's own limit (500) or past it (100,000): the same value."""
    assert _nesting(wire.parse(b"[" * levels + b"]" * levels)) == (wire.MAX_DEPTH, math.inf)
    assert _nesting(wire.parse(b"[" * wire.MAX_DEPTH + b"]" * wire.MAX_DEPTH)) == (128, None)


#: Issue 23's attack: brackets enough to need the nesting pass, then a string of escaped quotes
#: that never ends (each of its quotes started a string token again: quadratic).
UNTERMINATED = '{"a":' + "[" * 200 + '"' + '\\"' * 1000


def test_text_that_is_not_json_is_refused_in_one_pass_of_the_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def nesting_pass(text: str) -> str:
        raise AssertionError("the nesting pass ran on text the parser refuses by itself")

    monkeypatch.setattr(wire, "_shallow", nesting_pass)
    with pytest.raises(wire.NotJson):
        wire.parse(UNTERMINATED.encode())


def test_the_nesting_pass_reads_an_unterminated_string_as_one_token() -> None:
    deep = "[" * 2000 + UNTERMINATED
    tokens = [token.span() for token in wire._TOKEN.finditer(wire._masked(deep))]
    string_starts = 2000 + len('{"a":') + 200
    assert tokens[-2:] == [(string_starts - 200, string_starts), (string_starts, len(deep))]
    with pytest.raises(wire.NotJson):
        wire.parse(deep.encode())


def test_the_nesting_pass_skips_strings_whatever_their_escapes() -> None:
    """Brackets inside strings do not count, before or after an escaped quote or backslash."""
    strings = r'["\\", "\"[[[", "x\\\"]]]"]'
    assert wire.parse(strings.encode()) == ["\\", '"[[[', 'x\\"]]]']
    deep = "[" * 2000 + strings + "]" * 2000
    assert wire.parse(deep.encode()) == wire.parse(("[" * 2000 + "[]" + "]" * 2000).encode())


def test_a_leading_byte_order_mark_is_ignored() -> None:
    assert wire.parse(codecs.BOM_UTF8 + b'{"a":1}') == {"a": 1}
    with pytest.raises(wire.NotJson):
        wire.parse(b'{"a":1}' + codecs.BOM_UTF8)


def test_the_cut_keeps_scalars_and_cuts_containers_of_objects_and_arrays_alike() -> None:
    """At ``MAX_DEPTH`` an object's or an array's containers become an infinite number, and its
    other values stay; wide levels above it are walked whole."""
    inner = '{"keep": 1, "cut": [2], "also": {"x": 3}}'
    text = '[[1, {"a": [], "b": "s"}], ' + "[" * (wire.MAX_DEPTH - 2) + inner + "]" * 126 + "]"
    value = wire.parse(text.encode())
    assert value[0] == [1, {"a": [], "b": "s"}]
    deepest = value[1]
    for _ in range(wire.MAX_DEPTH - 3):
        [deepest] = deepest
    assert deepest == [{"keep": 1, "cut": math.inf, "also": math.inf}]


@pytest.mark.parametrize("text", [b"[" + b"[]," * 1000 + b"[]]", b"[" + b"[]," * 1000 + b"x"])
def test_the_collector_is_paused_while_the_parser_builds(
    text: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: the cyclic collector's passes over a flood of empty arrays cost more than the
    parse; it is paused while the parser builds, and resumes whatever the parse."""
    seen: list[bool] = []
    loads = wire._loads

    def watched(text: str) -> object:
        seen.append(gc.isenabled())
        return loads(text)

    monkeypatch.setattr(wire, "_loads", watched)
    assert gc.isenabled()
    with contextlib.suppress(wire.NotJson):
        wire.parse(text)
    assert (seen, gc.isenabled()) == ([False], True)


def test_a_paused_collector_stays_as_the_caller_left_it() -> None:
    gc.disable()
    try:
        wire.parse(b"[[]]")
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("text", "read"),
    [
        (b'{"a":1,"a":2}', math.inf),
        (b'{"a":1,"\\u0061":2}', math.inf),  # the same key once decoded
        (b'{"a:":"::","a:":1}', math.inf),  # colons inside the repeated key and its value
        (b'[{"k":{"x":[{"y":1,"y":1}]}}]', [{"k": {"x": [math.inf]}}]),
        (b'{"a":"b:c","\\u003a":":"}', {"a": "b:c", ":": ":"}),  # an escaped colon is no member
        (b'{"a\\"":1,"b\\\\":{"c":2}}', {'a"': 1, "b\\": {"c": 2}}),
    ],
)
def test_a_repeated_key_is_told_at_any_depth_and_only_then(text: bytes, read: object) -> None:
    assert wire.parse(text) == read


_KEYS = st.sampled_from(["a", ":", "a:", '"', "\\", "\u0061"])
_VALUES = st.recursive(
    st.integers(0, 3) | _KEYS,
    lambda inner: st.lists(inner, max_size=3) | st.lists(st.tuples(_KEYS, inner), max_size=3),
    max_leaves=12,
)


def _written(value: object) -> str:
    """JSON text of ``value``, a list of pairs written as an object (so keys may repeat)."""
    if isinstance(value, list) and value and all(isinstance(item, tuple) for item in value):
        return "{" + ",".join(f"{json.dumps(k)}:{_written(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(_written, value)) + "]"
    return json.dumps(value)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(_VALUES)
def test_reading_without_a_hook_per_object_reads_what_the_hook_reads(value: object) -> None:
    text = _written(value)
    assert wire.parse(text.encode()) == json.loads(text, object_pairs_hook=wire._object)


def test_no_python_call_per_object_unless_a_key_is_repeated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused(pairs: object) -> object:
        raise AssertionError("the hook ran")

    monkeypatch.setattr(wire, "_object", refused)
    assert wire.parse(b'{"a:b":"c:d","e":[{"\\":":":"}]}') == {"a:b": "c:d", "e": [{'":': ":"}]}
