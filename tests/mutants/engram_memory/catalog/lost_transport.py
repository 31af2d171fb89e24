"""A server whose idempotency keys do not hold across MCP sessions (IDEM-012, IDEM-013), which
only the checks over clients of their own (profile full) can see; and one that is slow, but no
mutant."""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import replace
from typing import Any

from engram_conformance.reference_impl.engram_memory.context import InvocationContext

from ...caught import Caught
from ..base import ContextProxy, ServiceProxy
from .idempotency import identity_of

#: The rules the checks over clients of their own decide, and the check of each.
OVER_OWN_CLIENTS = {
    "IDEM-012": "retry_after_a_closed_transport_takes_effect_once",
    "IDEM-013": "identical_calls_over_several_sessions_take_effect_once",
}
#: What keys kept per session break: each rule over clients of their own, reported by its check.
KEYS_PER_SESSION = Caught.reported(OVER_OWN_CLIENTS)


class KeysPerSession(ContextProxy):
    """Each MCP session keeps idempotency keys of its own, as a server process that reserves
    keys in its memory would: a mutation sent again over another session takes effect again
    (capture makes another candidate; a transition answers ILLEGAL_TRANSITION)."""

    sessions = itertools.count(1)
    one_at_a_time = threading.Lock()  # the sessions' servers share one SQLite connection

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.session = next(self.sessions)

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        with self.one_at_a_time:
            return super().call(tool, arguments, context)

    def rebind(self, tool: str, arguments: Any, context: InvocationContext) -> InvocationContext:
        if identity_of(context, arguments) is None:
            return context
        return replace(context, principal=f"{context.principal}|session{self.session}")


class SlowMutations(ServiceProxy):
    """The reference, taking its time over each mutation (then it answers as the reference)."""

    TAKES_S = 0.1

    def call(self, tool: str, arguments: Any, context: InvocationContext) -> dict[str, Any]:
        if identity_of(context, arguments) is not None:
            time.sleep(self.TAKES_S)
        return self.inner.call(tool, arguments, context)
