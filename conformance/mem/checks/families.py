"""The family modules, whose import registers their checks, and the order the checks run in
(``RUN_ORDER``: the runner runs them as listed, whatever the order of the imports)."""

from __future__ import annotations

from ...check_registry import Checks
from . import (
    cuts,
    dedupe,
    dedupe_window,
    deletes,
    discovery,
    errors,
    judging,
    model,
    outputs,
    passive,
    privacy,
    projects,
    recall,
    refusals,
    restart,
    saving,
    scopes,
    searching,
    sessions,
    topics,
    updates,
    writers,
)
from .registry import checks as registered

#: every family, in the order its checks run (within a family, the order they are written in)
RUN_ORDER = (
    cuts,
    dedupe,
    dedupe_window,
    deletes,
    discovery,
    errors,
    judging,
    model,
    outputs,
    passive,
    privacy,
    projects,
    recall,
    refusals,
    restart,
    saving,
    scopes,
    searching,
    sessions,
    topics,
    updates,
    writers,
)


def checks() -> Checks:
    """The contract's checks in their run order (read when asked, so that a test may narrow
    the registry)."""
    return registered().in_order(RUN_ORDER)
