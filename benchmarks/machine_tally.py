"""What a model check's search did in one run, for the machine benchmarks of every contract:
its steps, the time its search took, and when each rule first broke.

``counted(registry, check)`` narrows the contract's registry to its model check
(the per-call checks still watch every call) and times the search: a step is one rule of the
machine (``MachineSearch.step``); the time to find a rule is from the search's start to the
rule's first broken expectation (``MachineSearch.violated``). A finding is searched again when the
runner re-checks it: its steps and time are added to the run's.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from engram_conformance.conformance import machine_search
from engram_conformance.conformance.machine_search import MachineSearch


class Tally:
    def __init__(self) -> None:
        self.steps = 0
        self.started = 0.0
        self.seconds = 0.0
        self.found: dict[str, float] = {}


@contextmanager
def counted(registry: ModuleType, check: str) -> Iterator[Tally]:
    """``check`` (registered in ``registry``) alone, its search timed."""
    tally = Tally()
    originals = (MachineSearch.step, MachineSearch.violated, machine_search.explore)
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
    machine_search.explore = explore
    registry.REGISTRY.clear()
    registry.REGISTRY[check] = kept[check]
    try:
        yield tally
    finally:
        MachineSearch.step, MachineSearch.violated = originals[:2]  # type: ignore[method-assign]
        machine_search.explore = originals[2]
        registry.REGISTRY.clear()
        registry.REGISTRY.update(kept)


def rate(kind: str, runner: Callable[[int], Any], seeds: range, timed: Callable[[], Any]) -> None:
    """Print the steps per second of ``runner`` at each seed, each run ``timed`` (``counted``)."""
    rates = []
    for seed in seeds:
        with timed() as tally:
            runner(seed)
        rates.append(tally.steps / tally.seconds)
        print(f"  {kind} seed {seed}: {tally.steps} steps in {tally.seconds:.1f} s", flush=True)
    shown = ", ".join(f"{r:.0f}" for r in rates)
    print(f"{kind}: median {statistics.median(rates):.0f} steps/s ({shown})", flush=True)


def shrunk_steps(result: Any, rule: str, check: str) -> int | None:
    """The length of the smallest failing example ``check`` reported against ``rule``."""
    evidence = result.ledger.evidence.get(rule)
    for failure in evidence.failures if evidence else []:
        if failure.check == check:
            return int(failure.observed.split("shrunk to ")[1].split(" steps")[0])
    return None
