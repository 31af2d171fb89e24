"""Benchmarks of the reference server: capture+admission throughput, search latency, peak memory.

Prints figures; asserts nothing. ``python benchmarks/bench_reference.py --help`` for options.
Populated state folders are kept under ``--cache`` so that reruns skip loading the records.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import anyio
from corpus import Corpus  # type: ignore[import-not-found]
from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.reference_impl.engram_memory.context import InvocationContext
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.service import MemoryService
from engram_conformance.spec.engram_memory.tool_names import SEARCH
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

PURPOSE = "purpose:bench"


def context(tool: str, tenant: str = "bench") -> InvocationContext:
    return InvocationContext(
        tenant, "workspace", "principal", "agent", "session", PURPOSE, "audit", tool, 0, 300
    )


def load_pairs(
    service: MemoryService, corpus: Corpus, first: int, count: int, tenant: str
) -> float:
    """Capture and admit ``count`` records; returns pairs per second."""
    capture_context = context("engram_memory_capture", tenant)
    admit_context = context("engram_memory_request_admission", tenant)
    elapsed = 0.0
    for number in range(first, first + count):
        arguments = corpus.capture(number, PURPOSE)  # generating the input is not timed
        started = time.perf_counter()
        captured = service.call("engram_memory_capture", arguments, capture_context)
        candidate_id = captured["output"]["value"]["candidate_id"]
        admission = {"candidate_id": candidate_id, "idempotency_key": f"bench-admit-{number:08d}"}
        outcome = service.call("engram_memory_request_admission", admission, admit_context)
        elapsed += time.perf_counter() - started
        assert outcome["output"]["value"]["outcome"]["status"] == "accepted"
    return count / elapsed


def search_latencies(
    service: MemoryService, corpus: Corpus, queries: int, tenant: str
) -> list[float]:
    search_context = context("engram_memory_search", tenant)
    latencies = []
    for _ in range(queries):
        arguments = {"query": corpus.query(), "purpose_ref": PURPOSE}
        started = time.perf_counter()
        answer = service.call("engram_memory_search", arguments, search_context)
        latencies.append((time.perf_counter() - started) * 1000)
        assert answer["ok"], answer
    return latencies


async def _stdio_latencies(
    state_dir: Path, corpus: Corpus, queries: int, tenant: str
) -> list[float]:
    signer = ContextSigner()
    key_file = signer.write_public_key(state_dir / "bench-host.pem")
    command = Path(sys.executable).with_name("engram-reference")
    parameters = StdioServerParameters(
        command=str(command),
        args=["serve", "--state-dir", str(state_dir), "--host-public-key", str(key_file)],
    )
    latencies = []
    async with Client(stdio_client(parameters), mode="legacy") as client:
        for _ in range(queries):
            now_s = int(time.time())
            claims = {
                "tenant": tenant, "workspace": "workspace", "principal": "principal",
                "agent_id": "agent", "session": "session", "purpose_ref": PURPOSE,
                "audit_id": "audit", "tool": SEARCH, "iat": now_s, "exp": now_s + 60,
            }  # fmt: skip
            meta = signer.meta(claims)  # signing is the host's cost, not the server's
            arguments = {"query": corpus.query(), "purpose_ref": PURPOSE}
            started = time.perf_counter()
            result = await client.call_tool(SEARCH, arguments, meta=meta)
            latencies.append((time.perf_counter() - started) * 1000)
            assert not result.is_error, result
    return latencies


def stdio_search_latencies(
    state_dir: Path, corpus: Corpus, queries: int, tenant: str
) -> list[float]:
    """Search round trips through the MCP client to ``engram-reference serve`` over stdio."""
    return anyio.run(_stdio_latencies, state_dir, corpus, queries, tenant)


def report(label: str, latencies: list[float]) -> None:
    print(
        f"{label}: p50 {percentile(latencies, 0.5):.2f} ms,"
        f" p99 {percentile(latencies, 0.99):.2f} ms,"
        f" mean {statistics.fmean(latencies):.2f} ms over {len(latencies):,} queries"
    )


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--pairs", type=int, default=2_000, help="pairs for the throughput figure")
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--cache", type=Path, default=Path(".bench-state"))
    options = parser.parse_args()

    corpus = Corpus()
    throughput_dir = options.cache / f"throughput-{time.time_ns()}"
    service = MemoryService(throughput_dir, HostPolicy())
    rate = load_pairs(service, corpus, 0, options.pairs, "throughput")
    service.close()
    print(f"capture+admission, in-process: {rate:,.0f} pairs/s over {options.pairs:,} pairs")

    for size in options.sizes:
        state_dir = options.cache / f"records-{size}"
        service = MemoryService(state_dir, HostPolicy())
        have = service.store.connection.execute("SELECT COUNT(*) FROM records").fetchone()[0]
        if have < size:
            rate = load_pairs(service, Corpus(seed=size), have, size - have, f"size-{size}")
            print(f"loaded {size - have:,} records at {rate:,.0f} pairs/s")
        latencies = search_latencies(service, Corpus(seed=3), options.queries, f"size-{size}")
        service.close()
        report(f"search at {size:,} records, in-process", latencies)
        latencies = stdio_search_latencies(
            state_dir, Corpus(seed=3), options.queries, f"size-{size}"
        )
        report(f"search at {size:,} records, over stdio", latencies)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    server_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"peak RSS: in-process benchmark {peak_mb:,.0f} MB,"
        f" largest stdio server {server_mb:,.0f} MB"
    )


if __name__ == "__main__":
    main()
