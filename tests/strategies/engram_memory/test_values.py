"""``arguments``: every generated object is valid, bounds are reachable, shrinking is small."""

from __future__ import annotations

from typing import Any

import pytest
from engram_conformance.spec.engram_memory import check_clock, instant_ms, validate_arguments
from engram_conformance.strategies.engram_memory import arguments
from engram_conformance.strategies.engram_memory.values import FAR_FUTURE_MS
from engram_conformance.strategies.text import utf8_size
from hypothesis import find, given

from .profile import CAPTURE, LARGE_REPR, SEARCH, SETTINGS, SHRINK, TOOLS

pytestmark = pytest.mark.filterwarnings(LARGE_REPR)


@pytest.mark.parametrize("tool", TOOLS)
def test_every_generated_object_is_accepted(tool: str) -> None:
    @SETTINGS
    @given(arguments(tool))
    def accepted(generated: dict[str, Any]) -> None:
        verdict = validate_arguments(tool, generated)
        assert verdict.ok, verdict
        # expires_at lies after the default clock window's start, so even then it is accepted
        assert check_clock(tool, generated, FAR_FUTURE_MS).ok

    accepted()


def _components(generated: dict[str, Any]) -> list[dict[str, Any]]:
    return generated["payload"]["components"]


def _family_refs(generated: dict[str, Any]) -> list[str]:
    return generated["payload"].get("reconciliation", {}).get("family_refs", [])


@pytest.mark.parametrize(
    ("tool", "reached"),
    [
        (CAPTURE, lambda a: any(utf8_size(c["text"]) == 65_536 for c in _components(a))),
        (CAPTURE, lambda a: len(_components(a)) == 64),
        (
            CAPTURE,
            lambda a: len(a["payload"].get("reconciliation", {}).get("family_refs", [])) == 64,
        ),
        (CAPTURE, lambda a: any(max(map(ord, c["text"])) > 0xFFFF for c in _components(a))),
        (CAPTURE, lambda a: not a["payload"]["purpose_ref"].isascii()),
        (CAPTURE, lambda a: isinstance(a["payload"]["valid_time"]["t"], float)),
        (CAPTURE, lambda a: a["payload"]["valid_time"].get("t_end") == 2**53 - 1),
        ("engram_memory_search", lambda a: utf8_size(a["query"]) == 8_192),
        ("engram_memory_search", lambda a: a.get("max_packet_bytes") == 1_048_576),
        ("engram_memory_forget", lambda a: utf8_size(a["idempotency_key"]) == 256),
        ("engram_memory_withdraw", lambda a: utf8_size(a["idempotency_key"]) == 16),
    ],
    ids=[
        "65536-byte-text",
        "64-components",
        "64-family-refs",
        "astral-text",
        "non-ascii-reference",
        "integer-with-zero-fraction",
        "max-safe-t-end",
        "8192-byte-query",
        "max-packet-bytes-max",
        "256-byte-key",
        "16-byte-key",
    ],
)
def test_bounds_are_reachable(tool: str, reached: Any) -> None:
    assert validate_arguments(tool, find(arguments(tool), reached, settings=SEARCH)).ok


def test_a_capture_shrinks_to_one_component_citing_one_citation() -> None:
    smallest = find(arguments(CAPTURE), lambda generated: True, settings=SHRINK)
    payload = smallest["payload"]
    assert len(payload["components"]) == len(payload["citations"]) == 1
    assert payload["components"][0]["text"] == "0"
    assert {"retention", "reconciliation"}.isdisjoint(payload)


def test_a_clock_window_bounds_expiry() -> None:
    window = (FAR_FUTURE_MS, FAR_FUTURE_MS + 1000)
    found = find(
        arguments(CAPTURE, clock_window=window),
        lambda a: "expires_at" in a["payload"].get("retention", {}),
        settings=SEARCH,
    )
    assert window[0] < instant_ms(found["payload"]["retention"]["expires_at"]) <= window[1]
