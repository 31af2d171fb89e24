"""The reference on arguments at the seed's bounds, beside its ordinary capture+admission rate.

The worst cases are those the bounded-cost check sends (``conformance.checks.cost``): the most
citations with the longest references, thousands of unsortable duplicate ids, texts of repeated
patterns. For each, in one run: validation alone (as the reference validates, and validating
every item of every array, as before issue 12), the whole capture call in-process, the admission
of the candidate it made (the credential scan of a maximum-size candidate), and the capture and
admission over stdio. Prints medians in milliseconds; asserts nothing.

``python benchmarks/bench_worst_case.py [--repeats 5] [--pairs 300]``
"""

from __future__ import annotations

import argparse
import itertools
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import anyio
from bench_reference import PURPOSE, context, load_pairs  # type: ignore[import-not-found]
from corpus import Corpus  # type: ignore[import-not-found]
from engram_conformance.conformance.engram_memory.checks.builders import capture_arguments
from engram_conformance.conformance.engram_memory.checks.cost import worst_captures
from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.service import MemoryService
from engram_conformance.spec import canonical
from engram_conformance.spec.engram_memory import Spec, canonical_json, load, validate_arguments
from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from timing import median_ms  # type: ignore[import-not-found]

_numbers = itertools.count()


def fresh_capture(spec: Spec) -> Callable[[], dict[str, Any]]:
    def fresh() -> dict[str, Any]:
        number = next(_numbers)
        key = f"bench-worst-case-{number:08d}"
        return capture_arguments(spec, key=key, purpose_ref=PURPOSE, text=f"note {number}")

    return fresh


def validation_ms(spec: Spec, arguments: dict[str, Any], repeats: int) -> tuple[float, float]:
    """Validation as the reference does it, and validating every item (before issue 12)."""
    now = median_ms(lambda: validate_arguments(CAPTURE, arguments, clock=None, spec=spec), repeats)
    with mock.patch.object(Spec, "argument_validator", Spec.input_validator):
        before = median_ms(
            lambda: validate_arguments(CAPTURE, arguments, clock=None, spec=spec), repeats
        )
    return now, before


def in_process_ms(
    service: MemoryService, spec: Spec, shape: str, repeats: int
) -> tuple[float, float | None]:
    """The capture call and the admission of its candidate (None when capture refuses)."""
    captures, admissions = [], []
    for _ in range(repeats):
        arguments = dict(worst_captures(spec, fresh_capture(spec)))[shape]
        started = time.perf_counter()
        captured = service.call(CAPTURE, arguments, context(CAPTURE))
        captures.append((time.perf_counter() - started) * 1000)
        if not captured["ok"]:
            continue
        admission = {
            "candidate_id": captured["output"]["value"]["candidate_id"],
            "idempotency_key": f"{arguments['idempotency_key']}-admit",
        }
        started = time.perf_counter()
        service.call(ADMIT, admission, context(ADMIT))
        admissions.append((time.perf_counter() - started) * 1000)
    return statistics.median(captures), statistics.median(admissions) if admissions else None


async def _over_stdio(spec: Spec, state_dir: Path, repeats: int) -> dict[str, tuple[float, ...]]:
    signer = ContextSigner()
    key_file = signer.write_public_key(state_dir / "bench-host.pem")
    command = Path(sys.executable).with_name("engram-reference")
    parameters = StdioServerParameters(
        command=str(command),
        args=["serve", "--state-dir", str(state_dir / "stdio"), "--host-public-key", str(key_file)],
    )
    figures: dict[str, list[list[float]]] = {}
    async with Client(stdio_client(parameters), mode="legacy") as client:

        async def call(tool: str, arguments: dict[str, Any]) -> tuple[Any, float]:
            now_s = int(time.time())
            claims = {
                "tenant": "bench", "workspace": "workspace", "principal": "principal",
                "agent_id": "agent", "session": "session", "purpose_ref": PURPOSE,
                "audit_id": "audit", "tool": tool, "iat": now_s, "exp": now_s + 60,
            }  # fmt: skip
            meta = signer.meta(claims)  # signing is the host's cost, not the server's
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments, meta=meta)
            return result, (time.perf_counter() - started) * 1000

        for _ in range(repeats):
            for shape, arguments in worst_captures(spec, fresh_capture(spec)):
                captured, capture_ms = await call(CAPTURE, arguments)
                samples = figures.setdefault(shape, [[], []])
                samples[0].append(capture_ms)
                if captured.is_error:
                    continue
                candidate_id = captured.structured_content["output"]["value"]["candidate_id"]
                admission = {
                    "candidate_id": candidate_id,
                    "idempotency_key": f"{arguments['idempotency_key']}-admit",
                }
                _, admit_ms = await call(ADMIT, admission)
                samples[1].append(admit_ms)
    return {
        shape: tuple(statistics.median(s) for s in samples if s)
        for shape, samples in figures.items()
    }


#: Matches any text: with it, ``canonical_json`` hands every value to ``rfc8785`` (as before).
_EVERYWHERE = re.compile("")


def _shown(milliseconds: float | None) -> str:
    return "refused" if milliseconds is None else f"{milliseconds:,.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5, help="samples per figure (median)")
    parser.add_argument("--pairs", type=int, default=300, help="pairs for the ordinary rate")
    options = parser.parse_args()
    spec = load()
    with tempfile.TemporaryDirectory() as scratch:
        state_dir = Path(scratch)
        service = MemoryService(state_dir / "in-process", HostPolicy(), spec=spec)
        rate = load_pairs(service, Corpus(), 0, options.pairs, "bench")
        with mock.patch.object(canonical, "_NOT_PLAIN_NUMBER", _EVERYWHERE):
            jcs_rate = load_pairs(service, Corpus(), options.pairs, options.pairs, "bench")
        print(
            f"ordinary capture+admission, in-process: {rate:,.0f} pairs/s"
            f" ({jcs_rate:,.0f} with rfc8785 writing every canonical form)"
        )
        for shape, arguments in worst_captures(spec, fresh_capture(spec)):
            size = len(canonical_json(arguments))
            now, before = validation_ms(spec, arguments, options.repeats)
            capture_ms, admit_ms = in_process_ms(service, spec, shape, options.repeats)
            with mock.patch.object(canonical, "_NOT_PLAIN_NUMBER", _EVERYWHERE):
                jcs_capture_ms, jcs_admit_ms = in_process_ms(service, spec, shape, options.repeats)
            print(
                f"{shape} ({size:,} bytes): validation {now:,.1f} ms"
                f" (every item validated: {before:,.1f} ms); in-process capture"
                f" {capture_ms:,.1f} ms, admission {_shown(admit_ms)}; with rfc8785 writing"
                f" every canonical form: capture {jcs_capture_ms:,.1f} ms,"
                f" admission {_shown(jcs_admit_ms)}"
            )
        service.close()
        for shape, medians in anyio.run(_over_stdio, spec, state_dir, options.repeats).items():
            shown = ", admission ".join(f"{m:,.1f} ms" for m in medians)
            print(f"{shape}, over stdio: capture {shown}")


if __name__ == "__main__":
    main()
