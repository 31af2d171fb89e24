"""Reading malformed JSON-RPC messages: time against size, side by side, up to the bound.

Issue 23: the bracket pre-scan of ``reference_impl/wire.py`` was quadratic on an unterminated
string of escaped quotes (a 128 kB POST held the HTTP server for 83 s). Each shape below is
built to each size, up to the bound both transports keep (``wire.MAX_MESSAGE_BYTES``), and read
in-process by ``wire.read`` as the transports read it; then each is sent at the bound to the
reference server over stdio (one line) and over streamable HTTP (one POST), and the time to its
answer is measured. Prints medians in milliseconds and nanoseconds per byte; asserts nothing.

``--baseline FILE`` reads each shape with another ``wire.py`` too (an older one, taken from git),
in the same run, beside today's: ``git show REV:reference_impl/wire.py > /tmp/wire_before.py``.

``python benchmarks/bench_wire.py [--repeats 5] [--baseline /tmp/wire_before.py]``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import httpx2
from baseline import load_baseline  # type: ignore[import-not-found]
from engram_conformance.reference_impl import wire
from timing import median_ms  # type: ignore[import-not-found]

SIZES = (64 << 10, 256 << 10, 1 << 20, 4 << 20, wire.MAX_MESSAGE_BYTES)
REFERENCE = Path(sys.executable).with_name("engram-reference")


def _filled(head: bytes, unit: bytes, size: int, tail: bytes = b"") -> bytes:
    return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail


_CALL = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"q":'

#: name -> the message of about ``size`` bytes; every one but the last is malformed
SHAPES: dict[str, Callable[[int], bytes]] = {
    "escaped quotes, unterminated (issue 23)": lambda n: _filled(
        b'{"a":' + b"[" * 200 + b'"', b'\\"', n
    ),
    "the same, 2,000 deep": lambda n: _filled(b"[" * 2000 + b'{"a":"', b'\\"', n),
    "brackets never closed": lambda n: b"[" * n,
    "empty arrays, then a stray byte": lambda n: _filled(b"[", b"[],", n, b"x"),
    "short strings, then a stray byte": lambda n: _filled(b"[", b'"a",', n, b"x"),
    "a valid call, empty objects": lambda n: _filled(_CALL + b"[", b"{},", n, b"0]}}}"),
    "a valid call, small numbers": lambda n: _filled(_CALL + b"[", b"1,", n, b"0]}}}"),
    "a valid call, one long string": lambda n: _filled(
        _CALL + b'"',
        b"x",
        n,
        b'"}}}',
    ),
}


def _read(reader: ModuleType, message: bytes) -> None:
    with contextlib.suppress(reader.NotJson, reader.InvalidRequest):
        reader.read(message)


def in_process(repeats: int, baseline: ModuleType | None) -> None:
    print("wire.read in-process, median ms (ns per byte):")
    print(f"{'shape':42}" + "".join(f"{size >> 10:>9,} KiB" for size in SIZES))
    readers = {"": wire} if baseline is None else {"today": wire, "baseline": baseline}
    for name, shape in SHAPES.items():
        for label, reader in readers.items():
            cells = []
            for size in SIZES:
                message = shape(size)
                ms = median_ms(lambda m=message, r=reader: _read(r, m), repeats)
                cells.append(f"{ms:7.1f} ({ms * 1e6 / len(message):3.0f})")
            row = f"{name}, {label}" if label else name
            print(f"{row:42}" + "".join(f"{cell:>13}" for cell in cells))


class _Server:
    """``engram-reference serve --contract mem`` on a fresh state folder: over stdio, or over
    HTTP on a free port with its bearer token."""

    def __init__(self, folder: Path, *options: str) -> None:
        command = [str(REFERENCE), "serve", "--contract", "mem", "--state-dir", str(folder)]
        self.log = folder.with_suffix(".log")
        with self.log.open("w") as log:
            self.process = subprocess.Popen(  # noqa: S603 - this environment's own command
                [*command, *options], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log
            )

    def announced(self, pattern: str) -> str:
        """The last word of the first line of the server's log holding ``pattern``."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for line in self.log.read_text().splitlines():
                if pattern in line:
                    return line.rsplit(" ", 1)[1]
            time.sleep(0.05)
        raise TimeoutError(f"no {pattern!r} in {self.log}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


def over_stdio(folder: Path, repeats: int) -> dict[str, float]:
    server = _Server(folder / "stdio")
    assert server.process.stdin is not None and server.process.stdout is not None
    stdin, stdout = server.process.stdin, server.process.stdout

    def exchange(line: bytes) -> None:
        stdin.write(line + b"\n")
        stdin.flush()
        json.loads(stdout.readline())

    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    try:
        exchange(json.dumps(initialize).encode())
        stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        figures = {}
        for name, shape in SHAPES.items():
            line = shape(wire.MAX_MESSAGE_BYTES - 1)  # and its newline: at the bound
            figures[name] = median_ms(lambda line=line: exchange(line), repeats)
        return figures
    finally:
        stdin.close()
        server.stop()


def over_http(folder: Path, repeats: int) -> dict[str, float]:
    server = _Server(folder / "http", "--http")
    url = server.announced("serving streamable HTTP at")
    token = Path(server.announced("must send the bearer token in")).read_text().strip()
    headers = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "authorization": f"Bearer {token}",
    }
    try:
        with httpx2.Client(timeout=60) as http:
            figures = {}
            for name, shape in SHAPES.items():
                body = shape(wire.MAX_MESSAGE_BYTES)

                def post(body: bytes = body) -> None:
                    http.post(url, content=body, headers=headers)

                figures[name] = median_ms(post, repeats)
            return figures
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5, help="samples per figure (median)")
    parser.add_argument("--baseline", type=Path, help="another wire.py to read with in-process")
    options = parser.parse_args()
    in_process(
        options.repeats, options.baseline and load_baseline(options.baseline, "wire_baseline")
    )
    with tempfile.TemporaryDirectory() as scratch:
        stdio = over_stdio(Path(scratch), options.repeats)
        http = over_http(Path(scratch), options.repeats)
    print(f"\nat the bound ({wire.MAX_MESSAGE_BYTES:,} bytes), time to the answer, median ms:")
    print(f"{'shape':42}{'stdio':>9}{'HTTP':>9}")
    for name in SHAPES:
        print(f"{name:42}{stdio[name]:9.1f}{http[name]:9.1f}")


if __name__ == "__main__":
    main()
