"""The family modules in the order their checks run (``RUN_ORDER``); importing them, as this
module does, registers their checks."""

from __future__ import annotations

from ...check_registry import Checks, family_modules
from .registry import checks as registered

#: every family, in the order its checks run (within a family, the order they are written in)
RUN_ORDER = family_modules(
    __package__,
    (
        "cuts",
        "dedupe",
        "dedupe_window",
        "deletes",
        "discovery",
        "errors",
        "judging",
        "model",
        "outputs",
        "passive",
        "privacy",
        "projects",
        "recall",
        "refusals",
        "restart",
        "saving",
        "scopes",
        "searching",
        "sessions",
        "topics",
        "updates",
        "writers",
    ),
)


def checks() -> Checks:
    """The contract's checks in their run order (read when asked, so that a test may narrow
    the registry)."""
    return registered().in_order(RUN_ORDER)
