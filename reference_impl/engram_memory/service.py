"""The reference memory service: every step of a call after the protocol checks.

``MemoryService.call`` runs DESIGN.md's order of checks from the deadline on: deadline, arguments
(schema, cross-references, digests), the confirmation gate, then the tool (which replays or
conflicts, checks the clock and host policy, then the lifecycle). It answers the envelope.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engram_conformance.spec.engram_memory import Spec, load, validate_arguments, wall_clock_ms

from ..at_rest import private_folder
from . import gate
from .context import InvocationContext
from .envelope import Refusal, failure, success
from .policy import HostPolicy
from .sealing import MASTER_KEY_FILE, Sealer, WrongKey
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
        try:
            self.sealer = _bound_sealer(self.store, state_dir, key_file)
        except BaseException:
            self.store.close()
            raise

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


def _bound_sealer(store: Store, state_dir: Path, key_file: Path | None) -> Sealer:
    """The sealer of the state's master key, checked against the state: a new key is made
    only for a state that holds no sealed material and no key check; a key that does not open
    the state's key check raises ``WrongKey`` (the server must not start: every pending
    candidate would be lost)."""
    key_path = key_file if key_file is not None else state_dir / MASTER_KEY_FILE
    check = store.key_check()
    if not Path(key_path).exists() and (check is not None or store.holds_sealed_material()):
        raise WrongKey(
            f"the master key {key_path} is missing, and the state folder {state_dir} holds "
            "material sealed with it: refused, a new key would lose every pending candidate"
        )
    sealer = Sealer.in_folder(state_dir, key_file)
    if check is None:
        store.bind_key_check(sealer.key_check())
    elif not sealer.opens_check(check):
        raise WrongKey(f"the master key {key_path} is not the key of the state folder {state_dir}")
    return sealer
