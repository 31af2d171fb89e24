"""How fast the harness calls, and how long it takes against the bundled reference server.
Prints figures, side by side in one sitting.

1. **Call rates** against one ``engram-reference serve --contract mem`` over stdio, started by
   the harness as a run starts it: the bare SDK floor (the harness's own ``mcp`` client calling
   ``mem_stats`` in a plain loop), then the harness's call path (``Session.call``: the time
   limit, the transcript, the output-schema check and every per-call check of the contract)
   one call at a time, then ``--width`` calls at a time, and the SDK client ``--width`` at a
   time (what the server itself can take). The four loops take turns in ``--rounds`` rounds,
   each making its share of ``--calls`` in each round, so that the machine's drift falls on all
   alike. Each is a number of calls per second (the median of its rounds) and its ratio to the
   floor (the median, over the rounds, of its rate over the floor's in the same round;
   targets: sequential at least 0.9, concurrent at least 2), with the CPU a call took in the
   client and the server together, and the rate that CPU allows at most on this machine's
   cores, busy every moment (cores / CPU a call).
2. **Runs**: ``engram-conformance run --reference --contract C`` ``--runs`` times for each
   contract, each in a fresh report folder, and as many by the kit of another checkout
   (``--before PATH/.venv/bin/engram-conformance``), the two taking turns: the wall time of the
   command, the CPU time of the kit and its servers, and from each report the run's duration,
   the checks' summed time, what they spent waiting on purpose (expiry, windows) and their calls.

``python benchmarks/bench_harness.py [--calls 1000] [--rounds 5] [--width 8] [--runs 3]
[--profile quick] [--before OTHER/.venv/bin/engram-conformance] [--contract engram-memory|mem]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
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
TOOL = "mem_stats"
ARGUMENTS: dict[str, object] = {}
WARM_UP_CALLS = 20

Call = Callable[[], Awaitable[Any]]


@dataclass(frozen=True)
class Rate:
    """Calls per second of wall time, and the CPU each call took in this process (the client)
    and the server it started, together."""

    calls_per_s: float
    cpu_ms_per_call: float


@dataclass(frozen=True)
class Rates:
    """One loop over its rounds: the median of its calls per second, the mean of its CPU a
    call, and the median of its rate over the floor's in the same round."""

    calls_per_s: float
    cpu_ms_per_call: float
    of_floor: float

    @classmethod
    def of(cls, rounds: list[Rate], floor: list[Rate]) -> Rates:
        paired = zip(rounds, floor, strict=True)
        ratios = [mine.calls_per_s / theirs.calls_per_s for mine, theirs in paired]
        return cls(
            statistics.median(rate.calls_per_s for rate in rounds),
            statistics.mean(rate.cpu_ms_per_call for rate in rounds),
            statistics.median(ratios),
        )


def tree_cpu_s() -> float:
    """The CPU seconds of this process and of every live process below it (Linux ``/proc``):
    the client and the server it started."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    total = own.ru_utime + own.ru_stime
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended while read
        pid = int(stat.parent.name)
        parents[pid], ticks[pid] = int(fields[1]), int(fields[11]) + int(fields[12])
    below, found = {os.getpid()}, True
    while found:
        found = False
        for pid, parent in parents.items():
            if parent in below and pid not in below:
                below.add(pid)
                found = True
    below.discard(os.getpid())
    return total + sum(ticks[pid] for pid in below) / os.sysconf("SC_CLK_TCK")


async def calls_per_second(call: Call, calls: int, width: int = 1) -> Rate:
    """``calls`` calls of ``call``, ``width`` at a time: per second of wall time, and their CPU."""

    async def worker(count: int) -> None:
        for _ in range(count):
            await call()

    each = calls // width
    cpu, started = tree_cpu_s(), time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(width):
            group.start_soon(worker, each)
    wall, cpu = time.perf_counter() - started, tree_cpu_s() - cpu
    return Rate(each * width / wall, 1000 * cpu / (each * width))


async def call_rates(calls: int, width: int, rounds: int) -> dict[str, Rates]:
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
            loops: dict[str, tuple[Call, int]] = {
                "bare SDK client, one at a time (the floor)": (bare, 1),
                "harness, one at a time": (harness, 1),
                f"harness, {width} at a time": (harness, width),
                f"bare SDK client, {width} at a time": (bare, width),
            }
            measured: dict[str, list[Rate]] = {name: [] for name in loops}
            for _ in range(rounds):
                for name, (call, at_once) in loops.items():
                    measured[name].append(await calls_per_second(call, calls // rounds, at_once))
            floor = next(iter(measured.values()))
            return {name: Rates.of(found, floor) for name, found in measured.items()}


@dataclass(frozen=True)
class Kit:
    """An ``engram-conformance`` to time, run in its checkout (``before``: another one's)."""

    name: str
    executable: Path
    checkout: Path


@dataclass(frozen=True)
class Timed:
    """One quick run: its wall time (the command, start to exit), the processes' CPU time (the
    kit's and its servers'), and from its report the run's duration, the checks' summed time,
    their deliberate waits and calls."""

    wall_s: float
    cpu_s: float
    duration_s: float
    checks_s: float
    waited_s: float
    calls: int
    counts: dict[str, int]


def timed_run(kit: Kit, contract: str, profile: str) -> Timed:
    with tempfile.TemporaryDirectory() as report_dir:
        command = [str(kit.executable), "run", "--reference", "--contract", contract]
        command += ["--profile", profile, "--seed", "1", "-q", "--report-dir", report_dir]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, cwd=kit.checkout, capture_output=True, check=False)  # noqa: S603
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        report = json.loads((Path(report_dir) / "report.json").read_text())
    timing = report["run"]["timing"]
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Timed(
        wall,
        cpu,
        report["run"]["duration_s"],
        timing["time_s"],
        timing["waited_s"],
        timing["calls"],
        report["counts"],
    )


def timed_runs(kits: list[Kit], contracts: list[str], runs: int, profile: str) -> None:
    """Each contract's reference run ``runs`` times by each kit, the kits taking turns (so that
    the machine's load falls on all alike), then a line per kit: the median wall time, and the
    median of the rest."""
    print(f"\nrun --reference --profile {profile}, {runs} runs each, taking turns")
    print(f"load average before: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
    header = f"{'contract':14} {'kit':7} {'wall s':>7} {'runs':>22} {'run s':>6} {'cpu s':>6}"
    print(f"{header} {'checks s':>8} {'waited s':>8} {'calls':>6}  verdicts")
    for contract in contracts:
        found: dict[str, list[Timed]] = {kit.name: [] for kit in kits}
        for _ in range(runs):
            for kit in kits:
                found[kit.name].append(timed_run(kit, contract, profile))
        for kit in kits:
            timed = found[kit.name]

            def median(field: str, timed: list[Timed] = timed) -> float:
                return statistics.median(getattr(t, field) for t in timed)

            walls = ", ".join(f"{t.wall_s:.1f}" for t in timed)
            print(
                f"{contract:14} {kit.name:7} {median('wall_s'):7.1f} {walls:>22} "
                f"{median('duration_s'):6.1f} {median('cpu_s'):6.1f} {median('checks_s'):8.1f} "
                f"{median('waited_s'):8.1f} {int(median('calls')):6}  {timed[-1].counts}"
            )
    print(f"load average after: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000, help="0: no call rates")
    parser.add_argument("--rounds", type=int, default=5, help="the call loops take turns")
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", choices=["quick", "full"], default="quick")
    parser.add_argument(
        "--before", type=Path, help="also time this engram-conformance (another checkout's)"
    )
    parser.add_argument(
        "--contract", action="append", choices=["engram-memory", "mem"], help="default: both"
    )
    options = parser.parse_args()
    if options.calls:
        rates = anyio.run(call_rates, options.calls, options.width, options.rounds)
        floor = next(iter(rates.values()))
        cores = len(os.sched_getaffinity(0))
        print(
            f"{'mem_stats against the mem reference over stdio':52} {'calls/s':>8}  of the floor"
            f"  CPU ms a call  at most on {cores} cores"
        )
        for name, rate in rates.items():
            bound = cores * 1000 / rate.cpu_ms_per_call
            print(
                f"{name:52} {rate.calls_per_s:8.0f}  {rate.of_floor:5.2f}"
                f"  {rate.cpu_ms_per_call:13.2f}  {bound:6.0f} ({bound / floor.calls_per_s:.2f})"
            )
    kits = [Kit("this", EXECUTABLE, Path(__file__).resolve().parents[1])]
    if options.before is not None:
        before = options.before.absolute()
        kits.insert(0, Kit("before", before, before.parents[2]))
    if options.runs:
        timed_runs(
            kits, options.contract or ["engram-memory", "mem"], options.runs, options.profile
        )


if __name__ == "__main__":
    main()
