"""The mem contract's checks: ``@check(rules=..., tools=...)`` registers a scripted check,
``@per_call(rules=...)`` a check of every answer (``check_registry`` says how)."""

from __future__ import annotations

from ...check_registry import Check, Checks, PerCall, registrars

REGISTRY: dict[str, Check] = {}
PER_CALL: dict[str, PerCall] = {}
#: the check that decides DISC-003 (the claimed tools are listed): the contract's discovery
DISCOVERY = "claimed_tools_are_listed"

check, per_call = registrars(REGISTRY, PER_CALL, provoker=DISCOVERY)


def checks() -> Checks:
    """The contract's checks as the runner takes them (read when asked, so a test may narrow
    ``REGISTRY``)."""
    return Checks(dict(REGISTRY), dict(PER_CALL))
