"""Imports every family module so that their checks register."""

from . import (  # noqa: F401
    check_order,
    discovery,
    envelope,
    errors,
    gate,
    generated,
    host,
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
