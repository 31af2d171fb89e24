"""Each redaction check fires on a server that breaks its rule, and no other redaction rule breaks.

A mutant runs under the redaction policy it needs, declared alike to the server and the harness.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.targets.descriptor import Policy
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy

from ..conformance.inprocess import ServiceProxy, broken_verdict, run_against
from .search_answers import Packet, broken, each_packet


class PacketProxy(ServiceProxy):
    """Alters every packet that search or get answers (``alter_packet``)."""

    def alter(
        self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]
    ) -> dict[str, Any]:
        return each_packet(tool, envelope, self.alter_packet)

    def alter_packet(self, packet: Packet) -> Packet:
        raise NotImplementedError


class HonoursHidingRecordId(PacketProxy):
    """A policy that hides record_id is followed, and says so (REDACT-001)."""

    def alter_packet(self, packet: Packet) -> Packet:
        record = {k: v for k, v in packet["record"].items() if k != "record_id"}
        listed = sorted([*packet["redacted_fields"], "/record_id"])
        return {**packet, "record": record, "redacted_fields": listed}


class UnsortedRedactedFields(PacketProxy):
    """redacted_fields comes in reverse order (REDACT-002)."""

    def alter_packet(self, packet: Packet) -> Packet:
        return {**packet, "redacted_fields": packet["redacted_fields"][::-1]}


class HidesTrustUnlisted(PacketProxy):
    """trust is hidden as declared but left out of redacted_fields (REDACT-003)."""

    def alter_packet(self, packet: Packet) -> Packet:
        listed = [p for p in packet["redacted_fields"] if p != "/trust"]
        return {**packet, "redacted_fields": listed}


class BareHexRedactionReceipt(PacketProxy):
    """redaction_receipt_digest is bare hex, without the sha256: prefix: present, as the seed
    wants (REDACT-004 holds), not of the kit's digest form (ENV-013)."""

    def alter_packet(self, packet: Packet) -> Packet:
        receipt = packet["redaction_receipt_digest"].removeprefix("sha256:")
        return {**packet, "redaction_receipt_digest": receipt}


class HidesCitationsByDefault(PacketProxy):
    """Citations are hidden, and listed, though the policy hides nothing (REDACT-005)."""

    def alter_packet(self, packet: Packet) -> Packet:
        record = {k: v for k, v in packet["record"].items() if k != "citations"}
        listed = sorted([*packet["redacted_fields"], "/citations"])
        return {**packet, "record": record, "redacted_fields": listed}


MUTANTS = [
    (HonoursHidingRecordId, {"record_id"}, {"REDACT-001"}),
    (UnsortedRedactedFields, {"citations", "components", "trust"}, {"REDACT-002"}),
    (HidesTrustUnlisted, {"trust"}, {"REDACT-003"}),
    (BareHexRedactionReceipt, set(), {"ENV-013"}),
    (HidesCitationsByDefault, set(), {"REDACT-005"}),
]


@pytest.mark.parametrize(
    ("mutant", "hidden", "rules"), MUTANTS, ids=[m.__name__ for m, _, _ in MUTANTS]
)
def test_redaction_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], hidden: set[str], rules: set[str]
) -> None:
    result = run_against(
        tmp_path,
        service_mutant=mutant,
        server_policy=HostPolicy(redacted_fields=frozenset(hidden)),
        target_policy=Policy(redacted_fields=frozenset(hidden)),
        only=("REDACT", "ENV-013"),
    )
    found = broken(result, "REDACT") | broken(result, "ENV")
    assert found == {rule: broken_verdict(rule) for rule in rules}


def test_reference_passes_every_redaction_rule(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("REDACT",))
    assert {v.verdict for v in result.verdicts.values()} == {"pass"}, result.verdicts


def test_reference_under_a_redacting_policy(tmp_path: Path) -> None:
    """Hiding fields (record_id among them, which must stay) leaves every rule decided.

    Only SEARCH-007 has nothing to judge: no record comes back whole.
    """
    hidden = frozenset({"citations", "trust", "record_id"})
    result = run_against(
        tmp_path,
        server_policy=HostPolicy(redacted_fields=hidden),
        target_policy=Policy(redacted_fields=hidden),
        only=("SEARCH", "PAGE", "REDACT"),
    )
    verdicts = {rule: verdict.verdict for rule, verdict in result.verdicts.items()}
    assert verdicts.pop("SEARCH-007") == "not_applicable"
    assert set(verdicts.values()) == {"pass"}, result.verdicts
