"""Search latency of two versions of the reference, side by side in one run, on one store.

``python benchmarks/bench_search_ab.py --baseline-python OTHER/.venv/bin/python`` starts one
worker process per version (this interpreter's ``engram_conformance``, and the one that
``--baseline-python`` imports, say a checkout of an earlier commit installed in its own
virtual environment), each serving searches in-process (``MemoryService.call``) on the same
state folder of ``bench_reference.py`` (``--cache``, loaded by it first). Each query goes to
both workers, in turns, first to one then to the other: both meet the machine's load at the
same moments. The answers are compared too (but ``issued_at`` and the digests over it):
a faster search must find the same records, scores, ranks and cursors. Prints p50 and p99 of
each, of the wall time and of the worker's CPU time (which a loaded machine inflates less: it
leaves out the time spent waiting for a core); asserts nothing but the answers' equality.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_reference import percentile  # type: ignore[import-not-found]
from corpus import Corpus  # type: ignore[import-not-found]

#: What changes from one call to the next whatever the version: the receipt's time and the
#: digests over it.
_OF_THE_MOMENT = ("issued_at", "receipt_digest", "response_digest")


def serve(state_dir: Path, tenant: str) -> None:
    """The worker: a query per line in, its wall and CPU times in ms and its answer (one JSON
    line) out."""
    from bench_reference import context  # type: ignore[import-not-found]
    from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
    from engram_conformance.reference_impl.engram_memory.service import MemoryService

    service = MemoryService(state_dir, HostPolicy())
    search_context = context("engram_memory_search", tenant)
    for line in sys.stdin:
        arguments = {"query": json.loads(line), "purpose_ref": "purpose:bench"}
        started, cpu = time.perf_counter(), time.process_time()
        answer = service.call("engram_memory_search", arguments, search_context)
        elapsed = (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000
        print(json.dumps([elapsed, _comparable(answer)]), flush=True)


def _comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in _OF_THE_MOMENT}
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline-python", type=Path, help="the other version's interpreter")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--cache", type=Path, default=Path(".bench-state"))
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        serve(Path(options.worker[0]), options.worker[1])
        return
    if options.baseline_python is None:
        parser.error("--baseline-python is required")
    state_dir = options.cache / f"records-{options.size}"
    if not state_dir.exists():
        sys.exit(f"{state_dir} holds no records: run bench_reference.py --sizes {options.size}")
    pythons = {"baseline": options.baseline_python, "this": Path(sys.executable)}
    arguments = ["--worker", str(state_dir.resolve()), f"size-{options.size}"]
    workers = {
        name: subprocess.Popen(  # noqa: S603 - the interpreters the caller names
            [str(python), __file__, *arguments],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, python in pythons.items()
    }
    latencies: dict[str, list[tuple[float, float]]] = {name: [] for name in workers}
    corpus = Corpus(seed=3)
    for number in range(options.queries):
        query = corpus.query()
        order = list(workers) if number % 2 else list(reversed(workers))
        answers = {}
        for name in order:
            worker = workers[name]
            assert worker.stdin is not None and worker.stdout is not None
            worker.stdin.write(json.dumps(query) + "\n")
            worker.stdin.flush()
            elapsed, answers[name] = json.loads(worker.stdout.readline())
            latencies[name].append(elapsed)
        assert answers["baseline"] == answers["this"], query
    for worker in workers.values():
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()
    for name, values in latencies.items():
        wall, cpu = [value[0] for value in values], [value[1] for value in values]
        print(
            f"{name} ({pythons[name]}): search at {options.size:,} records, in-process:"
            f" p50 {percentile(wall, 0.5):.2f} ms, p99 {percentile(wall, 0.99):.2f} ms"
            f" (CPU p50 {percentile(cpu, 0.5):.2f} ms, p99 {percentile(cpu, 0.99):.2f} ms)"
            f" over {len(values):,} queries, same answers"
        )


if __name__ == "__main__":
    main()
