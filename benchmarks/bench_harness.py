"""How long the harness takes against the bundled reference server, per profile. Prints figures.

``python benchmarks/bench_harness.py [--runs N] [--profile quick]``: runs
``engram-conformance run --reference`` N times in a fresh report folder and prints the wall
time of each run and the verdict counts of the last.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXECUTABLE = Path(sys.executable).with_name("engram-conformance")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", choices=["quick", "full"], default="quick")
    options = parser.parse_args()
    times = []
    for _ in range(options.runs):
        with tempfile.TemporaryDirectory() as report_dir:
            command = [
                str(EXECUTABLE),
                "run",
                "--reference",
                "--profile",
                options.profile,
                "--report-dir",
                report_dir,
            ]
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False)  # noqa: S603 - our own CLI
            times.append(time.perf_counter() - started)
            counts = json.loads((Path(report_dir) / "report.json").read_text())["counts"]
    print(
        f"engram-conformance run --reference --profile {options.profile}: "
        f"median {statistics.median(times):.1f} s over {options.runs} runs "
        f"({', '.join(f'{t:.1f}' for t in times)}); verdicts {counts}"
    )


if __name__ == "__main__":
    main()
