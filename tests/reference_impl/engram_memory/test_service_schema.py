"""The spec's labelled argument examples, sent to the reference service (SCHEMA, XREF,
RET-004, HOST-013, HOST-014, GATE-009): every invalid one answers its code and writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.spec.engram_memory import Example, Spec, load

from .service_fixtures import (
    CAPTURE,
    FORGET,
    GET,
    PURPOSE,
    SEARCH,
    WITHDRAW,
    Harness,
    assert_error,
    capture_arguments,
    open_harness,
    value_of,
)

EXAMPLES = load().examples
INVALID = [example for example in EXAMPLES if not example.valid]
VALID = [example for example in EXAMPLES if example.valid]

#: Valid arguments that name nothing this store holds: the answer each tool then gives.
VALID_ANSWERS = {
    GET: {"NOT_FOUND"},
    "engram_memory_request_admission": {"NOT_FOUND"},
    WITHDRAW: {"NOT_FOUND"},
    FORGET: {"NOT_FOUND"},
}


def _id(example: Example) -> str:
    return f"{example.tool.removeprefix('engram_memory_')}:{example.name}"


@pytest.fixture
def permissive(tmp_path: Path) -> Iterator[Harness]:
    """A host that permits retain, a long ceiling and every family the examples name."""
    families = {
        family
        for example in EXAMPLES
        if example.tool == CAPTURE and example.valid
        for family in example.arguments["payload"].get("reconciliation", {}).get("family_refs", [])
    }
    policy = HostPolicy(
        retain_allowed=True,
        retention_ceiling_s=2_000 * 365 * 86_400,
        reconciliation_families=frozenset(families),
    )
    with open_harness(tmp_path / "permissive", policy) as harness:
        yield harness


@pytest.mark.parametrize("example", INVALID, ids=_id)
def test_invalid_example_answers_its_code_and_writes_nothing(
    harness: Harness, spec: Spec, example: Example
) -> None:
    """Each invalid example breaks one rule (its ``rule``) and answers its ``code``."""
    with harness.writes_nothing():
        envelope = harness.call(example.tool, example.arguments)
    assert_error(spec, envelope, example.code or "")


@pytest.mark.parametrize("example", [e for e in VALID if e.tool == CAPTURE], ids=_id)
def test_valid_capture_example_commits(permissive: Harness, example: Example) -> None:
    """A valid capture example is committed_pending under a host that permits its retention."""
    value = value_of(permissive.call(CAPTURE, example.arguments))
    assert value["status"] == "committed_pending"


@pytest.mark.parametrize("example", [e for e in VALID if e.tool != CAPTURE], ids=_id)
def test_valid_example_passes_the_argument_checks(
    harness: Harness, spec: Spec, example: Example
) -> None:
    """A valid example of the other tools passes the schema: it answers as for an empty store."""
    envelope = harness.call(example.tool, example.arguments)
    if example.tool == SEARCH:
        arguments = example.arguments
        channels = arguments.get("capability_policy", {}).get("minimum_channels")
        expected = None
        if "page_cursor" in arguments:
            expected = "STALE_PAGE"  # no cursor of this store
        elif channels == "lexical_and_semantic":
            expected = "RANKING_UNAVAILABLE"
        if expected is None:
            assert value_of(envelope)["records"] == []
        else:
            assert_error(spec, envelope, expected)
    else:
        assert envelope["error"]["code"] in VALID_ANSWERS[example.tool]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (SEARCH, {"query": "q", "purpose_ref": PURPOSE, "limit": None}),
        (SEARCH, {"query": "q", "purpose_ref": PURPOSE, "page_cursor": None}),
        (SEARCH, {"query": "q", "purpose_ref": PURPOSE, "tenant": "tenant-b"}),
        (SEARCH, {"query": "q", "purpose_ref": PURPOSE, "page_cursor": ""}),
        (GET, {"record_id": "mem_" + "a" * 52, "purpose_ref": PURPOSE, "max_packet_bytes": None}),
        (
            WITHDRAW,
            {
                "candidate_id": "c",
                "idempotency_key": "k" * 16,
                "reason_ref": "r",
                "confirmed": True,
            },
        ),
    ],
    ids=["limit-null", "cursor-null", "extra-tenant", "cursor-empty", "get-null", "confirmed"],
)
def test_schema_nulls_extras_and_empty_cursor(
    harness: Harness, spec: Spec, tool: str, arguments: dict[str, object]
) -> None:
    """SCHEMA-001, SCHEMA-002, SCHEMA-018, HOST-014, GATE-009: INVALID_SCHEMA, nothing written."""
    with harness.writes_nothing():
        assert_error(spec, harness.call(tool, arguments), "INVALID_SCHEMA")


def test_capture_with_null_optional_writes_nothing_and_reserves_nothing(
    harness: Harness, spec: Spec
) -> None:
    """SCHEMA-002, XREF-010: a null optional field, then the corrected call is a first capture."""
    arguments = capture_arguments("null-key-000000001")
    arguments["payload"]["retention"] = None
    with harness.writes_nothing():
        assert_error(spec, harness.capture(arguments), "INVALID_SCHEMA")
    corrected = capture_arguments("null-key-000000001")
    assert value_of(harness.capture(corrected))["status"] == "committed_pending"
