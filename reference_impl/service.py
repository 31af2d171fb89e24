"""The reference memory service: every step of a call after the protocol checks.

``MemoryService.call`` runs DESIGN.md's order of checks from the deadline on: deadline, arguments
(schema, cross-references, digests), the confirmation gate, then the tool (which replays or
conflicts, checks the clock and host policy, then the lifecycle). It answers the envelope.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram_conformance.spec import Spec, load, validate_arguments, wall_clock_ms

from . import gate
from .at_rest import private_folder
from .context import InvocationContext
from .envelope import Refusal, failure, success
from .policy import HostPolicy
from .sealing import Sealer
from .store import Store
from .tools.admission import request_admission
from .tools.call import Call
from .tools.capture import capture
from .tools.forget import forget
from .tools.get import get
from .tools.search import search
from .tools.withdraw import withdraw

Handler = Callable[[Call], dict[str, Any]]
HANDLERS: dict[str, Handler] = {
    "engram_memory_search": search,
    "engram_memory_get": get,
    "engram_memory_capture": capture,
    "engram_memory_request_admission": request_admission,
    "engram_memory_withdraw": withdraw,
    "engram_memory_forget": forget,
}


class MemoryService:
    """One state folder: one SQLite database and one master key, for any number of scopes."""

    def __init__(
        self,
        state_dir: Path,
        policy: HostPolicy,
        *,
        spec: Spec | None = None,
        clock: Callable[[], int] = wall_clock_ms,
        key_file: Path | None = None,
    ) -> None:
        """``key_file``: the master key, when it is kept outside the state folder. A folder or
        key others can read raises ``at_rest.UnsafeState``."""
        state_dir = private_folder(Path(state_dir))
        self.spec = spec or load()
        self.policy = policy
        self.clock = clock
        self.store = Store(state_dir)
        self.sealer = Sealer.in_folder(state_dir, key_file)

    def close(self) -> None:
        self.store.close()

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        """The envelope answering a call that passed the protocol checks (steps 1 to 5)."""
        try:
            value = self._answer(tool, arguments, context, self.clock())
        except Refusal as refusal:
            return failure(self.spec, refusal.code, context.audit_id)
        return success(value, context.audit_id)

    def _answer(
        self, tool: str, arguments: Any, context: InvocationContext, now_ms: int
    ) -> dict[str, Any]:
        if context.deadline_ms is not None and now_ms >= context.deadline_ms:
            raise Refusal("DEADLINE_EXCEEDED")
        verdict = validate_arguments(tool, arguments, clock=None, spec=self.spec)
        if not verdict.ok:
            raise Refusal(verdict.code)
        if gate.needs_confirmation(self.spec, tool, self.policy.confirmation_required):
            confirmation = context.confirmation
            if confirmation is None or not gate.holds(
                self.spec, tool, arguments, confirmation, now_ms
            ):
                raise Refusal("gate_failed")
        call = Call(
            tool, arguments, context, now_ms, self.spec, self.store, self.sealer, self.policy
        )
        return HANDLERS[tool](call)
