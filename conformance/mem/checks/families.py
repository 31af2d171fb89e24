"""The family modules in the order their checks run (``RUN_ORDER``); importing them, as this
module does, registers their checks."""

from __future__ import annotations

from ...check_registry import family_modules

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
