"""Servers that break a redaction rule (REDACT): a field hidden, or listed, other than the policy
and the contract say, or the redaction receipt in another form."""

from __future__ import annotations

from typing import Any

from ...caught import Caught
from ..base import ServiceProxy
from ..search_answers import Packet, each_packet


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


class PacketsWithoutRedactionReceipt(PacketProxy):
    """Packets carry no redaction_receipt_digest when nothing is redacted (REDACT-004)."""

    def alter_packet(self, packet: Packet) -> Packet:
        if packet["redacted_fields"]:
            return packet
        return {k: v for k, v in packet.items() if k != "redaction_receipt_digest"}


#: (mutant, the fields its redaction policy hides, declared alike to the server and the harness,
#: what it breaks)
MUTANTS: list[tuple[type, frozenset[str], Caught]] = [
    (HonoursHidingRecordId, frozenset({"record_id"}), Caught(("REDACT-001",))),
    (
        UnsortedRedactedFields,
        frozenset({"citations", "components", "trust"}),
        Caught(("REDACT-002",)),
    ),
    (HidesTrustUnlisted, frozenset({"trust"}), Caught(("REDACT-003",))),
    (BareHexRedactionReceipt, frozenset(), Caught(("ENV-013",))),
    (HidesCitationsByDefault, frozenset(), Caught(("REDACT-005",))),
    (PacketsWithoutRedactionReceipt, frozenset(), Caught(("REDACT-004",))),
]
