"""The wall time of the quick ``engram-conformance`` commands, each a fresh process, the
commands taken in turn in every round (so that a change of load weighs on all of them alike):
the median and the least of ``--rounds`` starts of each, in seconds.

``python benchmarks/bench_cli_start.py [--rounds 7]`` (the console script of the active venv)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time

COMMANDS = (
    ("--help",),
    ("--version",),
    ("rules",),
    ("rules", "--contract", "mem"),
    ("explain", "GATE-006"),
    ("explain", "PRIV-001"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    script = shutil.which("engram-conformance")
    if script is None:
        raise SystemExit("engram-conformance is not on PATH: activate the kit's venv")
    samples: dict[tuple[str, ...], list[float]] = {command: [] for command in COMMANDS}
    for _ in range(rounds):
        for command in COMMANDS:
            started = time.perf_counter()
            subprocess.run([script, *command], stdout=subprocess.DEVNULL, check=True)  # noqa: S603 - our own CLI
            samples[command].append(time.perf_counter() - started)
    for command, times in samples.items():
        shown = " ".join(("engram-conformance", *command))
        print(f"{shown:45} median {statistics.median(times):.2f} s  least {min(times):.2f} s")


if __name__ == "__main__":
    main()
