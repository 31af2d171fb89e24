"""No plaintext of a pending, withdrawn or rejected candidate reaches any file of the state folder.

A canary string is captured and left pending (then withdrawn, or rejected); every byte of every
file in the state folder (database, WAL, shared memory, key) is searched for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from engram_conformance.reference_impl.engram_memory.context import Confirmation, InvocationContext
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.service import MemoryService
from engram_conformance.spec.engram_memory import operation_digest, wall_clock_ms

from .crash_worker import capture_arguments

CANARY = "canary-7f3e9a1c-pending-plaintext"


def context(tool: str, confirmation: Confirmation | None = None) -> InvocationContext:
    return InvocationContext(
        "tenant", "workspace", "principal", "agent", "session", "purpose:crash", "audit", tool,
        0, 300, confirmation=confirmation,
    )  # fmt: skip


def state_bytes(state_dir: Path) -> Iterator[tuple[Path, bytes]]:
    for path in state_dir.rglob("*"):
        if path.is_file():
            yield path, path.read_bytes()


def canary_capture(number: int, text: str) -> dict:
    arguments = capture_arguments(number)
    arguments["payload"]["components"][0]["text"] = text
    return arguments


@pytest.fixture
def service(tmp_path: Path) -> Iterator[MemoryService]:
    service = MemoryService(tmp_path, HostPolicy())
    yield service
    service.close()


def assert_absent(state_dir: Path, needle: str) -> None:
    files = dict(state_bytes(state_dir))
    assert any(path.name.endswith("-wal") for path in files), "the WAL is part of what is searched"
    for path, content in files.items():
        for encoded in (needle.encode("utf-8"), needle.encode("utf-16-le")):
            assert encoded not in content, f"{needle!r} found in {path.name}"


def test_pending_candidate_is_not_stored_in_clear(service: MemoryService, tmp_path: Path) -> None:
    answer = service.call(
        "engram_memory_capture", canary_capture(1, CANARY), context("engram_memory_capture")
    )
    assert answer["output"]["value"]["status"] == "committed_pending"
    assert_absent(tmp_path, CANARY)


def test_withdrawn_candidate_leaves_no_plaintext(service: MemoryService, tmp_path: Path) -> None:
    tool = "engram_memory_withdraw"
    captured = service.call(
        "engram_memory_capture", canary_capture(2, CANARY), context("engram_memory_capture")
    )
    arguments = {
        "candidate_id": captured["output"]["value"]["candidate_id"],
        "idempotency_key": "withdraw-canary-0001",
        "reason_ref": "reason:test",
    }
    now = wall_clock_ms()
    confirmation = Confirmation(
        "c", tool, arguments["candidate_id"], operation_digest(tool, arguments), now, now + 60_000
    )
    answer = service.call(tool, arguments, context(tool, confirmation))
    assert answer["output"]["value"]["key_destruction"] == "complete"
    assert_absent(tmp_path, CANARY)


def test_rejected_candidate_leaves_no_plaintext(service: MemoryService, tmp_path: Path) -> None:
    secret = CANARY + " password=hunter2-canary"
    captured = service.call(
        "engram_memory_capture", canary_capture(3, secret), context("engram_memory_capture")
    )
    arguments = {
        "candidate_id": captured["output"]["value"]["candidate_id"],
        "idempotency_key": "admit-canary-00001",
    }
    answer = service.call(
        "engram_memory_request_admission", arguments, context("engram_memory_request_admission")
    )
    assert answer["output"]["value"]["outcome"]["status"] == "rejected"
    assert_absent(tmp_path, CANARY)


def test_the_check_would_see_an_accepted_text(service: MemoryService, tmp_path: Path) -> None:
    """The search above is real: accepted records are stored in clear and it finds them."""
    captured = service.call(
        "engram_memory_capture", canary_capture(4, CANARY), context("engram_memory_capture")
    )
    arguments = {
        "candidate_id": captured["output"]["value"]["candidate_id"],
        "idempotency_key": "admit-canary-00002",
    }
    service.call(
        "engram_memory_request_admission", arguments, context("engram_memory_request_admission")
    )
    with pytest.raises(AssertionError, match="found in"):
        assert_absent(tmp_path, CANARY)
