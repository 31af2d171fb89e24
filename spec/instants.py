"""Instants of the contract: ``YYYY-MM-DDTHH:mm:ss.sssZ``, canonical UTC with milliseconds."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def instant(epoch_ms: int) -> str:
    """The canonical Instant of epoch milliseconds."""
    moment = _EPOCH + timedelta(milliseconds=epoch_ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def instant_ms(text: str) -> int:
    """Epoch milliseconds of a canonical Instant."""
    moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%f%z")
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def wall_clock_ms() -> int:
    """Now, in epoch milliseconds."""
    return time.time_ns() // 1_000_000
