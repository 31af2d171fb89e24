"""Servers that break a lifecycle rule (LIFE): receipts left out or forged, candidates that skip
a state or leave one they should not, a tombstone guard missing or too wide, time misread.

Each entry names the checks that report each rule it breaks (the per-call output check reports
a field the output schema requires); its run covers the whole LIFE family, so the entry also
pins down which other lifecycle rules a bug drags down with it (none, unless the bug really
breaks them too).
"""

from __future__ import annotations

import copy
import unicodedata
from typing import Any

from engram_conformance.conformance.engram_memory.checks.context import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)
from engram_conformance.reference_impl.engram_memory.envelope import success
from engram_conformance.spec.engram_memory import wall_clock_ms

from ...caught import Caught
from ..answers import SOME_DIGEST, edited, forged_receipt, refusal, status
from ..base import ServiceProxy


class CaptureWithoutTransactionReceipt(ServiceProxy):
    """capture answers without its transaction_receipt_digest (LIFE-001)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != CAPTURE:
            return envelope
        return edited(envelope, lambda value: value.pop("transaction_receipt_digest"))


class IndexedAtCapture(ServiceProxy):
    """Capture also files an admitted copy of the text at once: pending text is searchable
    (LIFE-002), and so is the text of a candidate later withdrawn (LIFE-012, LIFE-013)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        envelope = self.inner.call(tool, arguments, context)
        if tool == CAPTURE and envelope["ok"]:
            key = arguments["idempotency_key"]
            copied = self.inner.call(tool, {**arguments, "idempotency_key": key + "-c"}, context)
            admission = {
                "candidate_id": copied["output"]["value"]["candidate_id"],
                "idempotency_key": key + "-a",
            }
            self.inner.call(ADMIT, admission, context)
        return envelope


class NoDecisionReceipt(ServiceProxy):
    """The admission outcome lacks its decision_receipt_digest (LIFE-003)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != ADMIT:
            return envelope
        return edited(envelope, lambda value: value["outcome"].pop("decision_receipt_digest"))


class AcceptedWithoutRecordId(ServiceProxy):
    """An accepted outcome carries no record_id (LIFE-004)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != ADMIT:
            return envelope
        return edited(envelope, lambda value: value["outcome"].pop("record_id", None))


class RejectionAsError(ServiceProxy):
    """A rejected candidate is answered as an UNAUTHORIZED error envelope (LIFE-005)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool == ADMIT and status(envelope) == "rejected":
            return refusal("UNAUTHORIZED", context)
        return envelope


class QueuesEverything(ServiceProxy):
    """Admission leaves every candidate to a human: clean captures are never accepted (LIFE-006),
    nor are those outside their valid time (LIFE-019)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool != ADMIT:
            return self.inner.call(tool, arguments, context)
        outcome = {
            "status": "pending_adjudication",
            "candidate_id": arguments["candidate_id"],
            "cursor": "0",
            "decision_receipt_digest": SOME_DIGEST,
            "transaction_receipt_digest": SOME_DIGEST,
        }
        return success({"outcome": outcome, "replayed": False}, context.audit_id)


class RecordWithoutPrimaryEvent(ServiceProxy):
    """Returned records leave out the payload's primary_event (LIFE-007)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        def drop(value: dict) -> None:
            for packet in value["records"] if tool == SEARCH else [value]:
                packet["record"].pop("primary_event", None)

        return edited(envelope, drop) if tool in (GET, SEARCH) else envelope


class NoTombstoneGuard(ServiceProxy):
    """The admission policy never looks for a tombstoned payload (LIFE-008)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        inner.store.tombstoned_payload = lambda scope, payload_digest: False


class GuardAcrossScopes(ServiceProxy):
    """The tombstone guard looks for the payload in every scope, not the caller's (LIFE-010)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        connection = inner.store.connection

        def anywhere(scope: Any, payload_digest: str) -> bool:
            row = connection.execute(
                "SELECT 1 FROM records WHERE payload_digest = ? AND state = 'tombstoned'",
                (payload_digest,),
            ).fetchone()
            return row is not None

        inner.store.tombstoned_payload = anywhere


class AdjudicationIsFinal(ServiceProxy):
    """A candidate held for adjudication can never be decided again (LIFE-011)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.held: set[str] = set()

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == ADMIT and arguments["candidate_id"] in self.held:
            return refusal("ILLEGAL_TRANSITION", context)
        envelope = self.inner.call(tool, arguments, context)
        if tool == ADMIT and status(envelope) == "pending_adjudication":
            self.held.add(arguments["candidate_id"])
        return envelope


class WithdrawDoesNothing(ServiceProxy):
    """withdraw answers a receipt but leaves the candidate pending, so it can still be admitted
    (LIFE-013) and withdrawn again (LIFE-012)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == WITHDRAW:
            return forged_receipt(context, "withdraw", "pending", "withdrawn")
        return self.inner.call(tool, arguments, context)


class AdmitsWithdrawnCandidates(ServiceProxy):
    """withdraw only flags the candidate, and admission never looks at the flag: a withdrawn
    candidate is admitted and becomes a record (LIFE-012, LIFE-013)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.captured: dict[str, Any] = {}
        self.withdrawn: set[str] = set()

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        envelope = self.inner.call(tool, arguments, context)
        if tool == CAPTURE and envelope["ok"]:
            self.captured[envelope["output"]["value"]["candidate_id"]] = arguments
        if tool == WITHDRAW and envelope["ok"]:
            self.withdrawn.add(arguments["candidate_id"])
        if tool == ADMIT and arguments["candidate_id"] in self.withdrawn and not envelope["ok"]:
            return self.admitted_anyway(arguments, context)
        return envelope

    def admitted_anyway(self, arguments: Any, context: Any) -> dict:
        """The flagged candidate's content admitted (as a copy the reference can still read)."""
        key, candidate_id = arguments["idempotency_key"], arguments["candidate_id"]
        captured = {**self.captured[candidate_id], "idempotency_key": key + "-copy"}
        copy_id = self.inner.call(CAPTURE, captured, context)["output"]["value"]["candidate_id"]
        admitted = self.inner.call(ADMIT, {**arguments, "candidate_id": copy_id}, context)
        return edited(admitted, lambda value: value["outcome"].update(candidate_id=candidate_id))


class WithdrawsEndedCandidates(ServiceProxy):
    """withdraw of an accepted, rejected or withdrawn candidate answers success (LIFE-012)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool == WITHDRAW and envelope.get("error", {}).get("code") == "ILLEGAL_TRANSITION":
            return forged_receipt(context, "withdraw", "pending", "withdrawn")
        return envelope


class WithdrawReceiptWithoutCursor(ServiceProxy):
    """The withdraw receipt lacks its cursor (LIFE-013)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != WITHDRAW:
            return envelope
        return edited(envelope, lambda value: value["receipt"].pop("cursor"))


class ForgetCalledForget(ServiceProxy):
    """The forget receipt names its operation "forget", not "tombstone" (LIFE-014)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != FORGET:
            return envelope
        return edited(envelope, lambda value: value["receipt"].update(operation="forget"))


class ForgetsTwice(ServiceProxy):
    """forget of a tombstoned record answers success instead of ALREADY_TERMINAL (LIFE-016)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool == FORGET and envelope.get("error", {}).get("code") == "ALREADY_TERMINAL":
            return forged_receipt(context, "tombstone", "accepted_current", "tombstoned")
        return envelope


class StaleReadCache(ServiceProxy):
    """get serves a cached answer that forget does not invalidate (LIFE-017)."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.cache: dict[tuple[Any, str], dict] = {}

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != GET:
            return envelope
        key = (context.scope, arguments["record_id"])
        if envelope["ok"]:
            self.cache[key] = envelope
        elif key in self.cache:
            return {**self.cache[key], "auditId": context.audit_id}
        return envelope


class ValidTimeInSeconds(ServiceProxy):
    """The server keeps valid time in seconds: a record from the future is current, and one
    current now has ended (LIFE-019)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == CAPTURE:
            arguments = copy.deepcopy(arguments)
            valid_time = arguments["payload"]["valid_time"]
            for bound in ("t", "t_end"):
                if bound in valid_time:
                    valid_time[bound] //= 1000
        return self.inner.call(tool, arguments, context)


class EndedMeansHistorical(ServiceProxy):
    """forget reports a record whose t_end has passed as historical (LIFE-020)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != FORGET:
            return envelope
        stored = self.inner.store.record(context.scope, arguments["record_id"])
        if stored is None or stored.valid_t_end is None or stored.valid_t_end >= wall_clock_ms():
            return envelope
        return edited(envelope, lambda value: value["receipt"].update(from_state="historical"))


class NormalizesFreeText(ServiceProxy):
    """Component texts are stored in NFC: free text is not kept as sent (LIFE-007)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == CAPTURE and isinstance(arguments, dict):
            arguments = copy.deepcopy(arguments)
            for component in arguments["payload"]["components"]:
                component["text"] = unicodedata.normalize("NFC", component["text"])
        return self.inner.call(tool, arguments, context)


class IgnoresConsent(ServiceProxy):
    """Capture drops the reconciliation request instead of asking for the host's consent
    (LIFE-021)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == CAPTURE:
            arguments = copy.deepcopy(arguments)
            arguments["payload"].pop("reconciliation", None)
        return self.inner.call(tool, arguments, context)


class IgnoresExpiry(ServiceProxy):
    """The server drops retention.expires_at: records never expire (LIFE-015, LIFE-018, RET-006)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == CAPTURE and "retention" in arguments["payload"]:
            arguments = copy.deepcopy(arguments)
            arguments["payload"]["retention"].pop("expires_at", None)
        return self.inner.call(tool, arguments, context)


#: The rules whose checks need an accepted record (a mutant that answers none leaves them
#: undecided).
NEED_A_RECORD = (
    "LIFE-005",
    "LIFE-007",
    "LIFE-008",
    "LIFE-010",
    "LIFE-011",
    "LIFE-014",
    "LIFE-015",
    "LIFE-016",
    "LIFE-017",
    "LIFE-018",
    "LIFE-019",
    "LIFE-020",
)
#: (mutant, the rules it breaks, each with the checks that report it, and those it leaves
#: undecided)
MUTANTS: list[tuple[type, Caught]] = [
    (
        CaptureWithoutTransactionReceipt,
        Caught.reported({"LIFE-001": "capture_commits_a_pending_candidate"}),
    ),
    (
        IndexedAtCapture,
        Caught.reported(
            {
                "LIFE-002": "pending_candidate_is_neither_searchable_nor_readable",
                "LIFE-012": "ended_candidates_refuse_transitions",
                "LIFE-013": "withdrawn_candidate_never_becomes_a_record",
            }
        ),
    ),
    (
        NoDecisionReceipt,
        Caught.reported({"LIFE-003": "admission_answers_an_outcome_with_receipts"}),
    ),
    (
        AcceptedWithoutRecordId,
        Caught.reported(
            {
                "LIFE-004": (
                    "accepted_candidate_becomes_a_readable_record",
                    "success_value_matches_the_output_schema",
                )
            },
            undecided=NEED_A_RECORD,
        ),
    ),
    # Without its rejected candidate, the check of ended candidates cannot decide LIFE-012.
    (
        RejectionAsError,
        Caught.reported({"LIFE-005": "rejection_is_a_success_result"}, undecided=("LIFE-012",)),
    ),
    (
        QueuesEverything,
        Caught.reported(
            {
                "LIFE-006": "admission_answers_an_outcome_with_receipts",
                "LIFE-019": "valid_time_decides_currency",
            },
            # nothing is ever accepted, nor ends: the checks of records and of ended candidates
            undecided=(
                "LIFE-004",
                "LIFE-005",
                "LIFE-007",
                "LIFE-008",
                "LIFE-010",
                "LIFE-011",
                "LIFE-012",
                "LIFE-013",
                "LIFE-014",
                "LIFE-015",
                "LIFE-016",
                "LIFE-017",
                "LIFE-018",
                "LIFE-020",
            ),
        ),
    ),
    (
        RecordWithoutPrimaryEvent,
        Caught.reported({"LIFE-007": "accepted_candidate_becomes_a_readable_record"}),
    ),
    (
        NormalizesFreeText,
        Caught.reported({"LIFE-007": "accepted_candidate_becomes_a_readable_record"}),
    ),
    # Forgotten content is accepted again, never held: the adjudication check cannot decide.
    (
        NoTombstoneGuard,
        Caught.reported(
            {"LIFE-008": "forgotten_content_is_held_for_adjudication"}, undecided=("LIFE-011",)
        ),
    ),
    (GuardAcrossScopes, Caught.reported({"LIFE-010": "tombstone_guard_is_bound_to_the_scope"})),
    (
        AdjudicationIsFinal,
        Caught.reported({"LIFE-011": "adjudication_leaves_the_candidate_pending"}),
    ),
    (
        WithdrawDoesNothing,
        Caught.reported(
            {
                "LIFE-012": "ended_candidates_refuse_transitions",
                "LIFE-013": "withdrawn_candidate_never_becomes_a_record",
            }
        ),
    ),
    (
        AdmitsWithdrawnCandidates,
        Caught.reported(
            {
                "LIFE-012": "ended_candidates_refuse_transitions",
                "LIFE-013": "withdrawn_candidate_never_becomes_a_record",
            }
        ),
    ),
    (
        WithdrawsEndedCandidates,
        Caught.reported({"LIFE-012": "ended_candidates_refuse_transitions"}),
    ),
    (WithdrawReceiptWithoutCursor, Caught.reported({"LIFE-013": "withdraw_answers_its_receipt"})),
    (ForgetCalledForget, Caught.reported({"LIFE-014": "forget_answers_its_receipt"})),
    (
        ForgetsTwice,
        Caught.reported({"LIFE-016": "forget_of_a_tombstoned_record_is_already_terminal"}),
    ),
    (StaleReadCache, Caught.reported({"LIFE-017": "forgotten_record_never_returns"})),
    (ValidTimeInSeconds, Caught.reported({"LIFE-019": "valid_time_decides_currency"})),
    (EndedMeansHistorical, Caught.reported({"LIFE-020": "valid_time_leaves_the_state_unchanged"})),
    (IgnoresConsent, Caught.reported({"LIFE-021": "reconciliation_needs_host_consent"})),
]
#: What a server whose records never expire breaks, as the full profile's check that waits for
#: an expiry reports it.
NEVER_EXPIRING = Caught.reported(
    {
        "LIFE-015": "retention_expiry_moves_records_to_expired",
        "LIFE-018": "retention_expiry_moves_records_to_expired",
    }
)
