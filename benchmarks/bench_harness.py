"""How fast the harness calls, and how long it takes against the bundled reference server.
Prints figures, side by side in one sitting.

1. **Call rates** against one ``engram-reference serve --contract mem`` over stdio, started by
   the harness as a run starts it: the bare SDK floor (the harness's own ``mcp`` client calling
   ``mem_stats`` in a plain loop), then the harness's call path (``Session.call``: the time
   limit, the transcript, the output-schema check and every per-call check of the contract)
   one call at a time, then ``--width`` calls at a time, and the SDK client ``--width`` at a
   time (what the server itself can take). Each is a number of calls per second and its ratio
   to the floor (targets: sequential at least 0.9, concurrent at least 2).
2. **Runs**: ``engram-conformance run --reference`` ``--runs`` times in a fresh report folder:
   the wall time of each, and from the last report the time the checks took, their calls and
   what they spent waiting on purpose (retention windows, expiry).

``python benchmarks/bench_harness.py [--calls 1000] [--width 8] [--runs 3] [--profile quick]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from engram_conformance.conformance.executor import CheckExecutor
from engram_conformance.conformance.launching import launched, promised
from engram_conformance.conformance.ledger import Ledger
from engram_conformance.conformance.request import RunRequest, prepare
from engram_conformance.conformance.session import Session
from engram_conformance.conformance.targets.reference import reference_descriptor

EXECUTABLE = Path(sys.executable).with_name("engram-conformance")
#: A cheap call every mem server answers the same way, whatever its state.
TOOL, ARGUMENTS = "mem_stats", {}
WARM_UP_CALLS = 20

Call = Callable[[], Awaitable[Any]]


async def calls_per_second(call: Call, calls: int, width: int = 1) -> float:
    """``calls`` calls of ``call``, ``width`` at a time, per second of wall time."""

    async def worker(count: int) -> None:
        for _ in range(count):
            await call()

    each = calls // width
    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(width):
            group.start_soon(worker, each)
    return each * width / (time.perf_counter() - started)


async def call_rates(calls: int, width: int) -> dict[str, float]:
    prepared = prepare(RunRequest(target=reference_descriptor("mem"), contract="mem"))
    contract, spec, descriptor = prepared.contract, prepared.spec, prepared.descriptor
    host = contract.host(spec, "bench")
    with launched(descriptor, host, contract) as target:
        async with target.connect() as connection:
            policy, options = promised(contract, descriptor, prepared.options)
            executor = CheckExecutor(
                contract, spec, policy, host, target, options, seed=1, after_stop=None
            )
            session = Session(connection, target.call_timeout_s)
            session.observers.append(executor.observer(Ledger(), during=None))

            async def bare() -> None:
                await connection.default.call_tool(TOOL, ARGUMENTS)

            async def harness() -> None:
                await session.call(TOOL, ARGUMENTS, None, None)
                session.transcript.clear()  # a run keeps one check's calls, not thousands

            await calls_per_second(bare, WARM_UP_CALLS)
            await calls_per_second(harness, WARM_UP_CALLS)
            return {
                "bare SDK client, one at a time (the floor)": await calls_per_second(bare, calls),
                "harness, one at a time": await calls_per_second(harness, calls),
                f"harness, {width} at a time": await calls_per_second(harness, calls, width),
                f"bare SDK client, {width} at a time": await calls_per_second(bare, calls, width),
            }


def timed_runs(runs: int, profile: str) -> None:
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as report_dir:
            command = [str(EXECUTABLE), "run", "--reference", "--profile", profile]
            command += ["--report-dir", report_dir]
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False)  # noqa: S603 - our own CLI
            times.append(time.perf_counter() - started)
            report = json.loads((Path(report_dir) / "report.json").read_text())
    timing = report["run"]["timing"]
    print(
        f"\nengram-conformance run --reference --profile {profile}: "
        f"median {statistics.median(times):.1f} s over {runs} runs "
        f"({', '.join(f'{t:.1f}' for t in times)}); verdicts {report['counts']}\n"
        f"last run: checks {timing['time_s']:.1f} s, of which waiting on purpose "
        f"{timing['waited_s']:.1f} s; {timing['calls']} calls"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", choices=["quick", "full"], default="quick")
    options = parser.parse_args()
    rates = anyio.run(call_rates, options.calls, options.width)
    floor = next(iter(rates.values()))
    print(f"{'mem_stats against the mem reference over stdio':52} {'calls/s':>8}  of the floor")
    for name, rate in rates.items():
        print(f"{name:52} {rate:8.0f}  {rate / floor:5.2f}")
    if options.runs:
        timed_runs(options.runs, options.profile)


if __name__ == "__main__":
    main()
