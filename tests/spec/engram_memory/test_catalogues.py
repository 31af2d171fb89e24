"""Typed access to the catalogues, and the facts of the seed they must hold."""

from __future__ import annotations

from engram_conformance.spec.engram_memory import Spec

SIX_TOOLS = {
    "engram_memory_search",
    "engram_memory_get",
    "engram_memory_capture",
    "engram_memory_request_admission",
    "engram_memory_withdraw",
    "engram_memory_forget",
}
NINE_STATES = {
    "pending", "rejected", "withdrawn", "accepted_current", "accepted_disputed",
    "historical", "expired", "trust_invalid", "tombstoned",
}  # fmt: skip
RETRIABLE = {
    "RATE_LIMITED", "DEADLINE_EXCEEDED", "CANCELLED", "STORE_UNAVAILABLE", "FENCE_LOST",
    "CURSOR_GAP", "POLICY_UNAVAILABLE", "POLICY_STALE", "PROJECTION_STALE",
    "RANKING_UNAVAILABLE", "MUTATION_OUTCOME_UNKNOWN",
}  # fmt: skip
FAMILIES = {
    "ENV", "SCHEMA", "XREF", "IDEM", "SCOPE", "LIFE", "SEARCH", "PAGE", "GATE", "HOST",
    "ERR", "REDACT", "RET", "PRIV",
}  # fmt: skip


def test_identity_and_tools(spec: Spec) -> None:
    identity = spec.contract["identity"]
    assert (identity["provider"], identity["connector"], identity["contract_version"]) == (
        "sentropic.engram.memory",
        "engram-memory",
        "1.0.0",
    )
    assert set(spec.tools) == SIX_TOOLS
    gated = {name for name, tool in spec.tools.items() if tool.confirmation == "always"}
    assert gated == {"engram_memory_withdraw", "engram_memory_forget"}
    keyed = {name for name, tool in spec.tools.items() if tool.idempotency_key}
    assert keyed == SIX_TOOLS - {"engram_memory_search", "engram_memory_get"}


def test_error_catalogue_matches_the_seed_table(spec: Spec) -> None:
    assert len(spec.errors) == 31
    assert "gate_failed" in spec.errors
    assert {code for code, error in spec.errors.items() if error.retriable} == RETRIABLE
    assert all(error.action in spec.actions for error in spec.errors.values())
    messages = [error.message for error in spec.errors.values()]
    assert len(set(messages)) == len(messages), "each code has its own constant message"
    assert {p.code: p.message for p in spec.protocol_errors.values()} == {
        -32603: "Trusted invocation context unavailable",
        -32602: "Unknown tool",
    }


def test_lifecycle_has_nine_states_and_only_accepted_current_is_visible(spec: Spec) -> None:
    assert set(spec.states) == NINE_STATES
    visible = {s.name for s in spec.states.values() if s.visible_to_search or s.visible_to_get}
    assert visible == {"accepted_current"}
    assert {s.name for s in spec.states.values() if s.terminal} == {
        "rejected",
        "withdrawn",
        "tombstoned",
    }


def test_agent_transitions_name_their_tool_and_host_ones_none(spec: Spec) -> None:
    for transition in spec.transitions:
        assert (transition.actor == "agent") == (transition.tool is not None), transition
    forget_from = {t.from_state for t in spec.transitions if t.tool == "engram_memory_forget"}
    assert forget_from == {
        "accepted_current",
        "accepted_disputed",
        "historical",
        "expired",
        "trust_invalid",
    }
    capture = [t for t in spec.transitions if t.operation == "capture"]
    assert [(t.from_state, t.to_state) for t in capture] == [(None, "pending")]


def test_rule_catalogue(spec: Spec) -> None:
    rules = spec.rules.values()
    assert len(spec.rules) > 60
    assert {rule.family for rule in rules} >= FAMILIES
    assert {rule.level for rule in rules} == {"must", "should", "profile"}
    for rule in rules:
        assert rule.id.startswith(rule.family + "-")
        assert set(rule.tools) <= SIX_TOOLS
        assert rule.testable == (rule.untestable_reason is None), rule.id
    profile_sources = {rule.source_document for rule in rules if rule.level == "profile"}
    assert profile_sources <= {"design", "seed"}


def test_limits_of_the_seed(spec: Spec) -> None:
    limits = {limit.name: limit for limit in spec.limits}
    assert (limits["opaque_ref"].min, limits["opaque_ref"].max) == (1, 512)
    assert (limits["idempotency_key"].min, limits["idempotency_key"].max) == (16, 256)
    assert (limits["query"].min, limits["query"].max) == (1, 8192)
    assert (limits["limit"].min, limits["limit"].max, limits["limit"].default) == (1, 50, 10)
    assert limits["argument_object"].max == 1_048_576
    assert limits["component_text"].max == 65_536
    assert limits["confirmation_ttl"].max == 300
    assert limits["confirmation_execution_window"].max == 30


def test_every_schema_builds_a_validator(spec: Spec) -> None:
    for tool in spec.tools:
        assert spec.input_validator(tool).is_valid({}) is False
        assert spec.output_validator(tool).is_valid({}) is False
    assert spec.envelope_validator().is_valid({"ok": True}) is False
    assert spec.binding_validator().is_valid({}) is False


def test_output_validator_follows_references_into_records(spec: Spec) -> None:
    packet = {
        "record": {"record_id": "mem_abc"},
        "redacted_fields": [],
        "redaction_receipt_digest": "sha256:" + "0" * 64,
    }
    receipt = {
        "record_id": "mem_abc",
        "record_digest": "sha256:" + "1" * 64,
        "valid_as_of": 0,
        "system_as_of": "1",
        "validated_through_cursor": "1",
        "authorization_receipt_digest": "sha256:" + "2" * 64,
        "revalidation_receipt_digest": "sha256:" + "3" * 64,
        "checked_at": "2026-01-01T00:00:00.000Z",
        "receipt_digest": "sha256:" + "4" * 64,
    }
    value = {**packet, "read_receipt": receipt, "packet_digest": "sha256:" + "5" * 64}
    validator = spec.output_validator("engram_memory_get")
    assert validator.is_valid(value)
    assert not validator.is_valid({**value, "record": {"record_id": "rec_1"}})
