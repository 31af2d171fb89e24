"""A process that captures memories in a loop and prints each acknowledged answer.

Run by test_durability.py, which kills it with SIGKILL mid-stream. Usage:
``python crash_worker.py STATE_DIR FIRST COUNT``; prints ``key candidate_id status`` per capture.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engram_conformance.reference_impl.engram_memory.context import InvocationContext
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.service import MemoryService

DIGEST = "sha256:" + "ab" * 32
TOOL = "engram_memory_capture"
CONTEXT = InvocationContext(
    "tenant-crash", "workspace-crash", "principal", "agent", "session", "purpose:crash",
    "audit-crash", TOOL, 0, 300,
)  # fmt: skip


def capture_arguments(number: int) -> dict:
    return {
        "idempotency_key": f"crash-capture-key-{number:06d}",
        "payload": {
            "schema_version": 2,
            "purpose_ref": "purpose:crash",
            "valid_time": {"t": 0},
            "components": [
                {"component_id": "c", "kind": "context", "text": f"note {number}",
                 "citation_ids": ["x"]}
            ],
            "primary_component_id": "c",
            "primary_event": {"at": 0, "type_ref": "event:note", "citation_id": "x"},
            "citations": [
                {"citation_id": "x", "source_ref": "s", "locator": {"scheme": "n", "value": "v"},
                 "content_digest": DIGEST}
            ],
        },
        "evidence": {"evidence_ref": "e", "evidence_digest": DIGEST, "citation_ids": ["x"]},
    }  # fmt: skip


def main() -> None:
    state_dir, first, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    service = MemoryService(state_dir, HostPolicy())
    for number in range(first, first + count):
        envelope = service.call(TOOL, capture_arguments(number), CONTEXT)
        value = envelope["output"]["value"]
        print(number, value["candidate_id"], value["status"], flush=True)


if __name__ == "__main__":
    main()
