"""The lifecycle state machine: steps per second against the reference, in-process and over
stdio, and how long it takes to find each planted bug, over several seeds. Prints figures.

``python benchmarks/bench_machine.py [--seeds 5] [--rate-seeds 3]``

The machine's check runs alone (the per-call checks still watch every call), as in
``tests/strategies/engram_memory/test_machine.py``, whose planted bugs it reuses. A step is one
rule of the machine; each is followed by the invariant's search. Time to find is from the
check's start to the first broken expectation of the planted bug's rule; the shrunk length is
that of the smallest failing example reported.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' planted bugs

from engram_conformance.conformance.engram_memory.checks import model_check, registry
from engram_conformance.conformance.engram_memory.plugin import CONTRACT
from engram_conformance.conformance.launching import run_launched
from engram_conformance.conformance.runner import RunOptions
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.spec.engram_memory import load
from engram_conformance.strategies.engram_memory.machines import RULES

from benchmarks import machine_tally
from tests.conformance.inprocess import run_against
from tests.strategies.engram_memory.test_machine import PLANTED

CHECK = model_check.lifecycle_model_holds.__name__


def counted() -> Any:
    """The machine's check alone, its search timed (``machine_tally``)."""
    registry.all_checks()
    return machine_tally.counted(registry, CHECK)


def over_stdio(seed: int) -> Any:
    options = RunOptions(profile="full", only=RULES, seed=seed)
    return run_launched(CONTRACT, load(), reference_descriptor(), options)[0]


def in_process(seed: int, **planted: Any) -> Any:
    with tempfile.TemporaryDirectory() as state:
        rules = RULES if not planted else planted.pop("only")
        return run_against(Path(state), only=rules, profile="full", seed=seed, **planted)


def time_to_find(seeds: range) -> None:
    for name, (planted, rule) in PLANTED.items():
        times, lengths, missed = [], [], 0
        for seed in seeds:
            with counted() as tally:
                result = in_process(seed, only=(rule,), **planted())
            if rule in tally.found:
                times.append(tally.found[rule])
                lengths.append(machine_tally.shrunk_steps(result, rule, CHECK))
            else:
                missed += 1
        found = f"median {statistics.median(times):.1f} s" if times else "never found"
        each = ", ".join(f"{t:.1f}" for t in times)
        print(
            f"{name} ({rule}): {found} over {len(times)}/{len(seeds)} seeds ({each}); "
            f"shrunk to {sorted(lengths)} steps" + (f"; missed at {missed} seeds" if missed else "")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5, help="seeds per planted bug")
    parser.add_argument("--rate-seeds", type=int, default=3, help="seeds per steps/s figure")
    parser.add_argument("--skip-rate", action="store_true")
    options = parser.parse_args()
    if not options.skip_rate:
        machine_tally.rate("in-process", in_process, range(1, options.rate_seeds + 1), counted)
        machine_tally.rate("stdio", over_stdio, range(1, options.rate_seeds + 1), counted)
    if options.seeds:
        time_to_find(range(1, options.seeds + 1))


if __name__ == "__main__":
    main()
