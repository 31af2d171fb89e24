"""The server's stderr log stays under its cap, keeps the newest output, and its tail is the
last whole lines, long ones cut with their length told."""

from __future__ import annotations

from pathlib import Path

from engram_conformance.conformance.targets.server_log import ServerLog, tail


def test_the_log_keeps_the_newest_output_under_its_cap(tmp_path: Path) -> None:
    log = ServerLog(tmp_path / "stderr.log", cap_bytes=64 * 1024)
    for number in range(2000):
        log.write(f"line {number:05d} {'x' * 100}\n".encode())
    kept = log.path.read_bytes()
    assert len(kept) <= 64 * 1024 + 200
    assert kept.startswith(b"[engram-conformance: ")
    assert b"earlier bytes of stderr dropped]" in kept
    assert kept.endswith(b"line 01999 " + b"x" * 100 + b"\n")
    assert tail(log.path, lines=2).splitlines()[-1].startswith("line 01999")


def test_the_tail_is_whole_lines_and_cuts_a_long_one(tmp_path: Path) -> None:
    log = ServerLog(tmp_path / "stderr.log")
    log.write(b"first\n" + b"y" * 1000 + b"\nlast\n")
    shown = tail(log.path).splitlines()
    assert shown[0] == "first"
    assert shown[1].startswith("y" * 300) and shown[1].endswith("... (1000 characters)")
    assert shown[2] == "last"
    assert tail(tmp_path / "missing.log") == ""
