"""What a model check's search did in one run, for the machine benchmarks of every contract:
its steps, the time its search took, and when each rule first broke.

``counted(check_module, registry, check)`` narrows the contract's registry to its model check
(the per-call checks still watch every call) and times the search: a step is one rule of the
machine (``MachineSearch.step``); the time to find a rule is from the search's start to the
rule's first broken expectation (``MachineSearch.violated``). A finding is searched again when the
runner re-checks it: its steps and time are added to the run's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from engram_conformance.conformance.machine_search import MachineSearch


class Tally:
    def __init__(self) -> None:
        self.steps = 0
        self.started = 0.0
        self.seconds = 0.0
        self.found: dict[str, float] = {}


@contextmanager
def counted(check_module: ModuleType, registry: ModuleType, check: str) -> Iterator[Tally]:
    """``check`` (of ``check_module``, registered in ``registry``) alone, its search timed."""
    tally = Tally()
    originals = (MachineSearch.step, MachineSearch.violated, check_module.explore)
    kept = dict(registry.REGISTRY)

    def step(self: Any, description: str) -> None:
        tally.steps += 1
        originals[0](self, description)

    def violated(self: Any, rule: str, expected: str, observed: Any) -> None:
        tally.found.setdefault(rule, time.perf_counter() - tally.started)
        originals[1](self, rule, expected, observed)

    def explore(*arguments: Any) -> None:
        began = time.perf_counter()
        tally.started = tally.started or began  # a re-check of a finding searches again
        try:
            originals[2](*arguments)
        finally:
            tally.seconds += time.perf_counter() - began

    MachineSearch.step, MachineSearch.violated = step, violated  # type: ignore[method-assign]
    check_module.explore = explore
    registry.REGISTRY.clear()
    registry.REGISTRY[check] = kept[check]
    try:
        yield tally
    finally:
        MachineSearch.step, MachineSearch.violated = originals[:2]  # type: ignore[method-assign]
        check_module.explore = originals[2]
        registry.REGISTRY.clear()
        registry.REGISTRY.update(kept)
