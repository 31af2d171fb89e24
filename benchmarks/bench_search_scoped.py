"""Search latency in one scope while other scopes of the same state folder are full too.

Prints p50/p99 of ``engram_memory_search`` through ``MemoryService.call`` in-process; asserts
nothing. The records are loaded straight through the store (the figure is search, not loading):
each scope gets ``--records`` accepted records of its own seeded corpus, the same vocabulary for
every scope, so every query matches in every scope. Populated state folders are kept under
``--cache``; a folder is only reused by the code that wrote it (give each version its own).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bench_reference import PURPOSE, search_latencies  # type: ignore[import-not-found]
from corpus import Corpus  # type: ignore[import-not-found]
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.records import build_record, searchable_text
from engram_conformance.reference_impl.engram_memory.service import MemoryService

WORKSPACE = "workspace"  # as bench_reference.context binds
LOAD_BATCH = 2_000  # records per write transaction while loading
AT_MS = 1_700_000_000_000


def held(service: MemoryService, tenant: str) -> int:
    row = service.store.connection.execute(
        "SELECT COUNT(*) FROM records WHERE tenant = ?", (tenant,)
    ).fetchone()
    return int(row[0])


def fill(service: MemoryService, tenant: str, count: int, seed: int) -> None:
    """Bring ``tenant``'s scope to ``count`` accepted records (as admission writes them)."""
    corpus, store, scope = Corpus(seed=seed), service.store, (tenant, WORKSPACE)
    have = held(service, tenant)
    for first in range(0, count, LOAD_BATCH):
        with store.write():
            for number in range(first, min(count, first + LOAD_BATCH)):
                arguments = corpus.capture(number, PURPOSE)  # drawn even when kept: seeded
                if number < have:
                    continue
                cursor = store.append_event(scope, "accept", f"bench-{number}", AT_MS)
                record = build_record(arguments["payload"], arguments["evidence"], cursor, AT_MS)
                store.insert_record(scope, record, searchable_text(record), None)


def forget_latencies(service: MemoryService, tenant: str, count: int) -> list[float]:
    """Tombstone ``count`` records of the scope through the store, as forget does (the index
    merge, and the WAL checkpoint where the store has one); the scope loses those records."""
    store, scope = service.store, (tenant, WORKSPACE)
    rows = store.connection.execute(
        "SELECT record_id FROM records WHERE tenant = ? AND state = 'accepted_current' LIMIT ?",
        (tenant, count),
    ).fetchall()
    measured = []
    for (record_id,) in rows:
        stored = store.record(scope, record_id)
        started = time.perf_counter()
        with store.write():
            store.tombstone(stored)
        getattr(store, "checkpoint", lambda: None)()
        measured.append((time.perf_counter() - started) * 1000)
    return measured


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000, help="records in every scope")
    parser.add_argument("--others", type=int, default=1, help="full scopes besides the caller's")
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--forgets", type=int, default=5, help="records forgotten, timed")
    parser.add_argument("--cache", type=Path, default=Path(".bench-state/scoped"))
    options = parser.parse_args()

    tenants = [f"scope-{index}" for index in range(options.others + 1)]
    service = MemoryService(options.cache / f"records-{options.records}", HostPolicy())
    started = time.perf_counter()
    for index, tenant in enumerate(tenants):
        fill(service, tenant, options.records, seed=1_000 + index)
    print(f"loaded {len(tenants)} scopes of {options.records:,} records"
          f" in {time.perf_counter() - started:.0f} s")  # fmt: skip
    measured = search_latencies(service, Corpus(seed=3), options.queries, tenants[0])
    report(f"search in one scope of {options.records:,} records beside {options.others} full"
           " scope(s), in-process", measured, "queries")  # fmt: skip
    forgets = forget_latencies(service, tenants[0], options.forgets)
    service.close()
    if forgets:
        report("forget's erasure in that scope (store)", forgets, "records")


def report(label: str, measured: list[float], what: str) -> None:
    print(
        f"{label}: p50 {percentile(measured, 0.5):.2f} ms, p99 {percentile(measured, 0.99):.2f}"
        f" ms, mean {statistics.fmean(measured):.2f} ms over {len(measured):,} {what}"
    )


if __name__ == "__main__":
    main()
