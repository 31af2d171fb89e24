"""The server's stderr, kept in a log file of bounded size, and its tail as evidence.

A server may write without end (100 MB of stderr, or one line without a newline): the log
keeps the newest ``LOG_CAP_BYTES`` and says how much it dropped before them, and the tail shown
as evidence is the last whole lines within ``TAIL_BYTES``, each cut at ``TAIL_LINE_CHARS``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import IO

#: The most of a server's stderr kept on disk (the newest part).
LOG_CAP_BYTES = 4 * 1024 * 1024
#: The most of the log's end read for a tail.
TAIL_BYTES = 4096
TAIL_LINES = 40
TAIL_LINE_CHARS = 300
CHUNK_BYTES = 65536


class ServerLog:
    """Appends what the servers of a run write to stderr to one file, keeping it under its cap:
    past it, the older half is dropped and a line says how many bytes went."""

    def __init__(self, path: Path, cap_bytes: int = LOG_CAP_BYTES) -> None:
        self.path = path
        self.cap_bytes = cap_bytes
        self._lock = threading.Lock()
        self._dropped = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def write(self, data: bytes) -> None:
        with self._lock:
            with self.path.open("ab") as log:
                log.write(data)
                size = log.tell()
            if size > self.cap_bytes:
                self._compact(size)

    def _compact(self, size: int) -> None:
        kept = self.cap_bytes // 2
        with self.path.open("rb") as log:
            log.seek(size - kept)
            newest = log.read()
        self._dropped += size - kept
        note = f"[engram-conformance: {self._dropped} earlier bytes of stderr dropped]\n"
        self.path.write_bytes(note.encode() + newest)

    def pump(self, stream: IO[bytes]) -> threading.Thread:
        """Copy ``stream`` (a pipe of a process) into the log in a thread until it ends."""

        def copy() -> None:
            with stream:
                while chunk := stream.read1(CHUNK_BYTES):  # type: ignore[attr-defined]
                    self.write(chunk)

        thread = threading.Thread(target=copy, name="server-stderr", daemon=True)
        thread.start()
        return thread


def tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last whole lines of the log at ``path`` within ``TAIL_BYTES``, long ones cut."""
    try:
        with path.open("rb") as log:
            size = log.seek(0, 2)
            log.seek(max(0, size - TAIL_BYTES))
            end = log.read()
    except OSError:
        return ""
    text = end.decode("utf-8", errors="replace")
    kept = text.splitlines()
    if size > TAIL_BYTES and len(kept) > 1:
        kept = kept[1:]  # the first is likely a part of a line
    return "\n".join(_cut(line) for line in kept[-lines:])


def _cut(line: str) -> str:
    if len(line) <= TAIL_LINE_CHARS:
        return line
    return f"{line[:TAIL_LINE_CHARS]}... ({len(line)} characters)"
