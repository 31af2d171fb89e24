"""The mem lifecycle machine: steps per second against the mem reference (in-process and over
stdio) and against the real Engram server over stdio, side by side in one run, and how long the
machine takes to find each planted bug, over several seeds. Prints figures.

``python benchmarks/bench_mem_machine.py [--seeds 5] [--rate-seeds 3]``; the real server is the
one ``tests/peers/install.sh`` built into ``$ENGRAM_PEERS_DIR`` (skipped, saying so, without it).

The machine's check runs alone (``machine_tally``), as in ``tests/strategies/mem/test_machine.py``,
whose planted bugs it reuses. A step is one rule of the machine. Time to find is from the
search's start to the first broken expectation of the planted bug's rule; the shrunk length is
that of the smallest failing example reported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' planted bugs

from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.launching import run_launched
from engram_conformance.conformance.mem.checks import model, registry
from engram_conformance.conformance.mem.plugin import CONTRACT
from engram_conformance.conformance.runner import RunOptions
from engram_conformance.conformance.targets.descriptor import load_descriptor
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.strategies.mem.machine import RULES

from benchmarks import machine_tally
from tests.conformance.mem.inprocess import run_against
from tests.strategies.mem.planted import MUTANTS

CHECK = model.observations_follow_the_model.__name__
REPO = Path(__file__).resolve().parents[1]
PEER = REPO / "targets" / "peers" / "engram-v1.toml"


def counted() -> Any:
    return machine_tally.counted(registry, CHECK)


def launched(descriptor: Any) -> Callable[[int], Any]:
    def run(seed: int) -> Any:
        options = RunOptions(profile="full", only=RULES, seed=seed)
        return run_launched(CONTRACT, CONTRACT.load_spec(), descriptor, options)[0]

    return run


def in_process(seed: int, **planted: Any) -> Any:
    with tempfile.TemporaryDirectory() as state:
        return run_against(Path(state), only=RULES, profile="full", seed=seed, **planted)


def time_to_find(seeds: range) -> None:
    for mutant, caught in MUTANTS:
        [rule] = caught.broken
        times, lengths = [], []
        for seed in seeds:
            with counted() as tally:
                result = in_process(seed, wiring_mutant=mutant)
            if rule in tally.found:
                times.append(tally.found[rule])
                lengths.append(machine_tally.shrunk_steps(result, rule, CHECK))
        found = f"median {statistics.median(times):.1f} s" if times else "never found"
        each = ", ".join(f"{t:.1f}" for t in times)
        print(
            f"{mutant.__name__} ({rule}): {found} at {len(times)}/{len(seeds)} seeds ({each}); "
            f"shrunk to {sorted(lengths)} steps",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=5, help="seeds per planted bug")
    parser.add_argument("--rate-seeds", type=int, default=3, help="seeds per steps/s figure")
    options = parser.parse_args()
    seeds = range(1, options.rate_seeds + 1)
    machine_tally.rate("mem reference, in-process", in_process, seeds, counted)
    machine_tally.rate(
        "mem reference, stdio", launched(reference_descriptor("mem")), seeds, counted
    )
    peers = os.environ.get("ENGRAM_PEERS_DIR")
    if peers and (Path(peers) / "engram-v1" / "bin" / "engram").is_file():
        engram = launched(load_descriptor(PEER, every_settings()))
        machine_tally.rate("Engram v1.20.0, stdio", engram, seeds, counted)
    else:
        print("Engram v1.20.0: not installed (tests/peers/install.sh, ENGRAM_PEERS_DIR)")
    if options.seeds:
        time_to_find(range(1, options.seeds + 1))


if __name__ == "__main__":
    main()
