"""What a per-call check works with: the one call it judges, the contract's spec, what it
remembers across the run's calls, and ``expect``, which records a verdict as a scripted check's
``check_context.BaseContext.expect`` does. Both kinds of check so take one context.

A module of its own, not a part of ``check_context``: ``check_registry`` names it (in
``PerCallFunction``) and so stays clear of the session and the targets, which
``check_context`` imports.
"""

from __future__ import annotations

from typing import Any

from .ledger import Failure, Ledger
from .observation import Observation


class PerCallContext:
    """One per-call check's view of one answer: the call ``observed``, the ``spec``, its
    ``memory`` across the run's calls (empty again for a re-check) and ``expect``. A failure
    shows the one call judged, and names the scripted check ``during`` which it was made."""

    def __init__(
        self,
        *,
        check: str,
        spec: Any,
        observed: Observation,
        memory: dict[Any, Any],
        ledger: Ledger,
        during: str | None,
    ) -> None:
        self.check = check
        #: the contract's loaded spec
        self.spec = spec
        self.observed = observed
        self.memory = memory
        #: the scripted check whose call this is (None: a call outside any check)
        self.during = during
        self._ledger = ledger

    def expect(self, rule: str, ok: bool, *, expected: str, observed: Any) -> bool:
        """Record that ``rule`` held (``ok``), or a failure: ``expected`` and ``observed`` are
        its evidence, a non-string ``observed`` shown as its repr."""
        if ok:
            self._ledger.passed(rule, self.check)
        else:
            shown = observed if isinstance(observed, str) else repr(observed)[:2000]
            calls = (self.observed.to_json(),)
            failure = Failure(self.check, expected, shown, calls, during=self.during)
            self._ledger.failed(rule, failure)
        return ok
