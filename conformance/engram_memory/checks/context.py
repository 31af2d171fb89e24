"""What an engram-memory check works with: the shared context (session, ledger, ``expect``), the
host, and contract-level helpers.

The helpers (``capture``,
``accept``, ``search``, ...) are plain calls with valid, unique arguments; they record nothing
themselves, so a check states exactly what it decides.
"""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory.tool_names import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)
from engram_conformance.strategies.engram_memory import envelopes

from ...check_context import BaseContext, CheckFailed, show
from ...observation import Observation
from ..host import Host, Identity
from .builders import capture_arguments

#: The row of the seed's error table for arguments that break the closed schema.
ARGUMENT_ERRORS = ("INVALID_SCHEMA", "INVALID_DIGEST")
#: The rule that judges which code of that row an argument error gets.
CODE_IN_ROW = "SCHEMA-035"
#: How a check whose positive control is refused stops (``CheckContext.require_accepted``).
ACCEPTS_NOTHING = "the server accepts nothing"


class CheckContext(BaseContext):
    """A check's context for the engram-memory contract: the host it plays, its own identity,
    and valid calls of the six tools."""

    def __init__(self, *, host: Host, **shared: Any) -> None:
        super().__init__(**shared)
        self.host = host
        self.identity = host.new_identity()

    # recording ---------------------------------------------------------------------------
    def expect_argument_refusal(
        self, rule: str, observed: Observation, code: str, what: str
    ) -> bool:
        """``rule`` holds when ``observed`` is refused as an argument error: with ``code`` or,
        when ``code`` is one of the seed table's row INVALID_SCHEMA, INVALID_DIGEST, with the
        other. Which of the two is DESIGN's choice, judged by ``CODE_IN_ROW`` (profile)."""
        if code not in ARGUMENT_ERRORS:
            return self.expect(
                rule,
                envelopes.code(observed) == code,
                expected=f"{what}: {code}",
                observed=observed,
            )
        refused = self.expect(
            rule,
            envelopes.code(observed) in ARGUMENT_ERRORS,
            expected=f"{what}: {' or '.join(ARGUMENT_ERRORS)}",
            observed=observed,
        )
        if refused:
            self.expect(
                CODE_IN_ROW,
                envelopes.code(observed) == code,
                expected=f"{what}: {code}",
                observed=observed,
            )
        return refused

    def require_accepted(
        self, control: Observation, what: str, accepted: bool | None = None
    ) -> None:
        """Stop the check (its rules become ``error``) unless ``control``, its positive control,
        was accepted: ``control.ok``, unless ``accepted`` says otherwise (a call of an id
        nobody issued is accepted when it is NOT_FOUND; a protocol refusal's control once it
        passes the protocol checks, as a result).

        A refusal proves something only when the same call put right, in the same scope
        (identity, claims, binding, tool), is accepted: a server that refuses every call would
        otherwise pass every check that expects a refusal."""
        if not (envelopes.ok(control) if accepted is None else accepted):
            raise CheckFailed(f"{ACCEPTS_NOTHING}: {what} got {show(control)}")

    # identities and values -----------------------------------------------------------------
    def new_identity(self, label: str = "") -> Identity:
        return self.host.new_identity(label)

    def key(self, label: str = "key") -> str:
        return f"{self.unique(label)}-idempotency"

    # calls ---------------------------------------------------------------------------------
    async def call(
        self,
        tool: str,
        arguments: Any,
        *,
        identity: Identity | None = None,
        meta: dict[str, Any] | None = None,
        **claims: Any,
    ) -> Observation:
        """One call bound to ``identity`` (default: the check's own); ``claims`` override."""
        bound = self.host.claims(identity or self.identity, tool, **claims)
        sent_meta = self.host.meta(bound) if meta is None else meta
        return await self.session.call(tool, arguments, sent_meta, bound)

    def capture_arguments(self, text: str | None = None, **options: Any) -> dict[str, Any]:
        identity = options.pop("identity", None) or self.identity
        return capture_arguments(
            self.spec,
            key=options.pop("key", None) or self.key("capture"),
            purpose_ref=identity.purpose_ref,
            text=text or f"note {self.unique('text')}",
            **options,
        )

    async def capture(
        self, arguments: dict[str, Any] | None = None, *, identity: Identity | None = None
    ) -> Observation:
        arguments = arguments or self.capture_arguments(identity=identity)
        return await self.call_approved(CAPTURE, arguments, identity=identity)

    async def admit(
        self, candidate_id: Any, *, identity: Identity | None = None, key: str | None = None
    ) -> Observation:
        arguments = {"candidate_id": candidate_id, "idempotency_key": key or self.key("admit")}
        return await self.call_approved(ADMIT, arguments, identity=identity)

    def needs_confirmation(self, tool: str) -> bool:
        """Whether calls of ``tool`` need a human approval: always, or by the target's policy."""
        gate = self.spec.tools[tool].confirmation
        return gate == "always" or (
            gate == "host_policy" and tool in self.policy.confirmation_required
        )

    async def call_approved(
        self, tool: str, arguments: dict[str, Any], *, identity: Identity | None = None
    ) -> Observation:
        """The call, carrying a human approval of it when its tool needs one."""
        if self.needs_confirmation(tool):
            return await self.confirmed(tool, arguments, identity=identity)
        return await self.call(tool, arguments, identity=identity)

    async def pending(self, text: str | None = None, *, identity: Identity | None = None) -> str:
        """A pending candidate's id (the check stops if capture does not work)."""
        captured = await self.capture(
            self.capture_arguments(text, identity=identity), identity=identity
        )
        self.require(
            envelopes.ok(captured) and "candidate_id" in envelopes.value(captured),
            "capture failed",
            captured.summary(),
        )
        return envelopes.value(captured)["candidate_id"]

    async def accepted(self, text: str | None = None, *, identity: Identity | None = None) -> str:
        """An accepted record's id (the check stops if capture or admission does not work)."""
        candidate_id = await self.pending(text, identity=identity)
        admitted = await self.admit(candidate_id, identity=identity)
        outcome = envelopes.value(admitted).get("outcome", {})
        self.require(
            outcome.get("status") == "accepted" and "record_id" in outcome,
            "admission of a clean capture was not accepted",
            admitted.summary(),
        )
        return outcome["record_id"]

    async def confirmed(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        identity: Identity | None = None,
        **approval: Any,
    ) -> Observation:
        """A call carrying a human approval of exactly this call (overridable)."""
        confirmation = self.host.confirmation(tool, arguments, **approval)
        return await self.call(tool, arguments, identity=identity, confirmation=confirmation)

    async def withdraw(
        self, candidate_id: Any, *, identity: Identity | None = None, key: str | None = None
    ) -> Observation:
        arguments = {
            "candidate_id": candidate_id,
            "idempotency_key": key or self.key("withdraw"),
            "reason_ref": "reason:conformance",
        }
        return await self.confirmed(WITHDRAW, arguments, identity=identity)

    async def forget(
        self, record_id: Any, *, identity: Identity | None = None, key: str | None = None
    ) -> Observation:
        arguments = {
            "record_id": record_id,
            "idempotency_key": key or self.key("forget"),
            "reason_ref": "reason:conformance",
        }
        return await self.confirmed(FORGET, arguments, identity=identity)

    async def search(
        self, query: str, *, identity: Identity | None = None, **arguments: Any
    ) -> Observation:
        identity = identity or self.identity
        sent = {"query": query, "purpose_ref": identity.purpose_ref, **arguments}
        return await self.call(SEARCH, sent, identity=identity)

    async def get(
        self, record_id: Any, *, identity: Identity | None = None, **arguments: Any
    ) -> Observation:
        identity = identity or self.identity
        sent = {"record_id": record_id, "purpose_ref": identity.purpose_ref, **arguments}
        return await self.call(GET, sent, identity=identity)

    async def found(self, query: str, *, identity: Identity | None = None) -> list[str]:
        """The record ids a search returns (the check stops if search fails)."""
        answer = await self.search(query, identity=identity)
        self.require(envelopes.ok(answer), "search failed", answer.summary())
        return [
            p.get("record", {}).get("record_id") for p in envelopes.value(answer).get("records", [])
        ]
