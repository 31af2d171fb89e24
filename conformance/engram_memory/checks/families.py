"""Imports every family module so that their checks register.

The registry keeps the order of registration, and the checks run in it: the families are
imported in the order their checks have always run (the host binding's first: check_order used
to import it).
"""

# isort: off
from . import (  # noqa: F401
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
# isort: on
