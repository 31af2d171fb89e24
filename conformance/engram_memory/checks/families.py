"""The family modules, whose import registers their checks, and the order the checks run in.

``RUN_ORDER`` is the order the checks have always run in (the host binding's first, then
check_order's, ...): the runner runs them as listed, whatever the order of the imports.
"""

from __future__ import annotations

from ...check_registry import Checks
from . import (
    binding,
    check_order,
    cost,
    discovery,
    envelope,
    erasure,
    errors,
    framing,
    gate,
    generated,
    idempotency,
    lifecycle,
    lost_transport,
    model_check,
    paging,
    privacy,
    redaction,
    retention,
    schema,
    scope,
    search,
    tool_authorization,
)
from .registry import checks as registered

#: every family, in the order its checks run (within a family, the order they are written in)
RUN_ORDER = (
    binding,
    check_order,
    cost,
    discovery,
    envelope,
    privacy,
    erasure,
    errors,
    framing,
    gate,
    idempotency,
    scope,
    generated,
    lifecycle,
    lost_transport,
    model_check,
    search,
    paging,
    redaction,
    retention,
    schema,
    tool_authorization,
)


def checks() -> Checks:
    """The contract's checks in their run order (read when asked, so that a test may narrow
    the registry)."""
    return registered().in_order(RUN_ORDER)
