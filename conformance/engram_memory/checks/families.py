"""The family modules in the order their checks run (``RUN_ORDER``); importing them, as this
module does, registers their checks. The order is the one they have always run in: the host
binding's first, then check_order's, ...
"""

from __future__ import annotations

from ...check_registry import family_modules

#: every family, in the order its checks run (within a family, the order they are written in)
RUN_ORDER = family_modules(
    __package__,
    (
        "binding",
        "check_order",
        "cost",
        "discovery",
        "envelope",
        "privacy",
        "erasure",
        "errors",
        "framing",
        "gate",
        "idempotency",
        "scope",
        "generated",
        "lifecycle",
        "lost_transport",
        "model_check",
        "search",
        "paging",
        "redaction",
        "retention",
        "schema",
        "tool_authorization",
    ),
)
