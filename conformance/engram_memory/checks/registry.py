"""The engram-memory contract's checks: ``@check(rules=..., tools=...)`` registers a scripted
check, ``@per_call(rules=...)`` a check of every answer (``check_registry`` says how)."""

from __future__ import annotations

from ...check_registry import Check, Checks, PerCall, registrars

REGISTRY: dict[str, Check] = {}
PER_CALL: dict[str, PerCall] = {}
#: A scripted check that calls every tool on its success path and on a failure path.
EVERY_TOOL = "every_tool_answers_envelopes"

check, per_call = registrars(REGISTRY, PER_CALL, provoker=EVERY_TOOL)


def all_checks() -> dict[str, Check]:
    """Every registered check (the package imports the family modules, which registers them)."""
    return dict(REGISTRY)


def all_per_call() -> dict[str, PerCall]:
    return dict(PER_CALL)


def checks() -> Checks:
    """The contract's checks as the runner takes them (read when asked, so a test may narrow
    ``REGISTRY``)."""
    return Checks(all_checks(), all_per_call())
