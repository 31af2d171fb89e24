"""A server's timestamps read as times: every version writes an ISO 8601 form, with or without
``T``, some with a ``Z`` for UTC (which the checks read as ``+00:00``)."""

from __future__ import annotations

from datetime import datetime


def instant(stamp: str) -> datetime | None:
    """``stamp`` as a time (``None``: it reads as no ISO 8601 time)."""
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
