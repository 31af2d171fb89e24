"""JCS canonical JSON and digests, proven against the upstream engine's golden payload digest."""

from __future__ import annotations

import hashlib
import re
from typing import Any
from unittest import mock

import pytest
import rfc8785
from engram_conformance.spec.engram_memory import canonical_json, digest, operation_digest
from hypothesis import given, settings
from hypothesis import strategies as st

#: The fixture payload of upstream rhanka/engram tests/memory-contract-schema.test.ts (d977a364),
#: whose payload digest that test asserts. Its domain prefix is the engine's, NUL-terminated.
UPSTREAM_PAYLOAD = {
    "schema_version": 2,
    "scope_ref": "scope:case-7",
    "purpose_ref": "purpose:case",
    "valid_time": {"t": 1_755_350_096_789, "t_end": 1_755_350_096_789},
    "components": [
        {
            "component_id": "component:decision",
            "kind": "decision",
            "text": "Applied the documented correction.",
            "citation_ids": ["citation:source"],
        }
    ],
    "primary_component_id": "component:decision",
    "primary_event": {
        "at": 1_755_350_096_789,
        "type_ref": "event:correction-applied",
        "citation_id": "citation:source",
    },
    "citations": [
        {
            "citation_id": "citation:source",
            "source_ref": "source:case",
            "locator": {"scheme": "document", "value": "case-7#correction"},
            "content_digest": "sha256:" + "a" * 64,
            "observed_at": "2026-08-16T12:34:56.789Z",
        }
    ],
    "retention": {"derivative_rule": "make-ineligible"},
    "reconciliation": {"family_refs": []},
}
UPSTREAM_PAYLOAD_DIGEST = "sha256:df5abcbf1d1091794c1f37efcd89e5f7bd6b91afa631e29f084178d35c55e913"


def test_upstream_golden_payload_digest() -> None:
    assert (
        digest(UPSTREAM_PAYLOAD, domain=b"graphify-memory/payload/v2\0") == UPSTREAM_PAYLOAD_DIGEST
    )


def test_golden_digest_depends_on_every_byte_of_the_canonical_form() -> None:
    changed = {**UPSTREAM_PAYLOAD, "purpose_ref": "purpose:case2"}
    assert digest(changed, domain=b"graphify-memory/payload/v2\0") != UPSTREAM_PAYLOAD_DIGEST
    assert digest(UPSTREAM_PAYLOAD, domain=b"engram-memory/payload/v2\0") != UPSTREAM_PAYLOAD_DIGEST


def test_canonical_json_sorts_keys_by_utf16_code_units_and_drops_whitespace() -> None:
    # U+1F600 is a surrogate pair (D83D DE00) and sorts before U+FF41 in UTF-16, after it in UTF-32
    value = {"\uff41": 1, "\U0001f600": 2, "a": [1.0, "é"], "B": None}
    assert canonical_json(value) == '{"B":null,"a":[1,"é"],"\U0001f600":2,"\uff41":1}'.encode()


def test_digest_form_and_value() -> None:
    value = {"b": 1, "a": "x"}
    expected = hashlib.sha256(b'{"a":"x","b":1}').hexdigest()
    assert digest(value) == "sha256:" + expected
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest([]))


def test_operation_digest_binds_tool_and_arguments() -> None:
    arguments = {"candidate_id": "cand_x", "idempotency_key": "k" * 16, "reason_ref": "r"}
    tool = "engram_memory_withdraw"
    assert operation_digest(tool, arguments) == digest({"tool": tool, "arguments": arguments})
    assert operation_digest("engram_memory_forget", arguments) != operation_digest(tool, arguments)


#: Any character (lone surrogates too), so that keys sort across the BMP's end and strings escape.
_TEXT = st.text(st.characters(codec=None, categories=None), max_size=6)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.integers(-(10**16), 10**16)
    | st.floats()
    | _TEXT
)
#: Keys drawn from few characters, on both sides of where UTF-16 and code point orders part.
_KEYS = st.text(st.sampled_from('a\uff41\U0001f600\ud800"\n'), max_size=3) | _TEXT
_JSON_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=24,
)


def _outcome(canonicalize: Any, value: Any) -> Any:
    try:
        return canonicalize(value)
    except Exception as error:  # the same refusal is what is compared
        return type(error)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(_JSON_DATA)
def test_canonical_json_writes_what_rfc8785_writes_or_refuses_alike(value: Any) -> None:
    """The encoder's fast path (spec/canonical.py) never changes a byte or a refusal."""
    assert _outcome(canonical_json, value) == _outcome(rfc8785.dumps, value)


@pytest.mark.parametrize(
    "value",
    [
        {"n": 2.0},  # a whole float: JCS writes 2
        {"n": -0.0},  # JCS writes 0
        {"n": 1e-05},  # JCS writes 0.00001
        {"n": 1e16},  # JCS writes 10000000000000000
        {"n": 1e21},  # JCS writes 1e+21
        [2**53],  # beyond the safe integers: refused
        {"\U0001f600": 1, "\uff41": 2},  # UTF-16 order differs from code point order
        ["\ud800"],  # a lone surrogate: refused
        float("nan"),
    ],
)
def test_what_only_jcs_decides_goes_to_rfc8785(value: Any) -> None:
    with mock.patch.object(rfc8785, "dumps", wraps=rfc8785.dumps) as spied:
        _outcome(canonical_json, value)
    assert spied.called


def test_plain_json_data_takes_the_encoder() -> None:
    with mock.patch.object(rfc8785, "dumps", wraps=rfc8785.dumps) as spied:
        assert canonical_json({"b": [1, "\n\x01é", True], "a": None, "c": False}) == (
            '{"a":null,"b":[1,"\\n\\u0001é",true],"c":false}'.encode()
        )
    assert not spied.called


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.floats(allow_nan=False, allow_infinity=False) | st.floats(1e-5, 1e17))
def test_a_float_is_written_as_rfc8785_writes_it(value: float) -> None:
    """Floats the encoder writes itself (a fraction, no exponent) and those it leaves to
    ``rfc8785`` come out the same, sign, range and shortest digits included."""
    assert canonical_json([value, -value]) == rfc8785.dumps([value, -value])


def test_a_score_takes_the_encoder() -> None:
    with mock.patch.object(rfc8785, "dumps", wraps=rfc8785.dumps) as spied:
        assert canonical_json({"score": -3.2071389564128414}) == b'{"score":-3.2071389564128414}'
    assert not spied.called
