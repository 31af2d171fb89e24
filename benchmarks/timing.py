"""How the benchmarks time a piece of work: the median of its wall times over some repeats."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(timed: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``timed()`` over ``repeats`` runs, in milliseconds."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        timed()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)
