"""Servers whose forget answers "complete" while the text is still in a state file (PRIV-007),
and one whose "pending" erasure never comes, judged once the harness has stopped it.

The last is a server over stdio (``STDIO``, planted by ``stdio_server.py``): only a server the
harness starts can be stopped, and looked at again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reference_impl.engram_memory.store import Store, StoredRecord
from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE, FORGET

from ...caught import Caught
from ..answers import edited
from ..base import InStateFolder, ServiceProxy

#: What the mutants run in process break: the erasure check reports PRIV-007, and only it.
ERASED_IN_CLEAR = Caught.reported({"PRIV-007": "forget_erases_the_text"})


def wal_kept(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The WAL is never checkpointed after forget (the pages the transaction overwrote keep the
    text while the server runs), yet forget answers "complete"."""
    monkeypatch.setattr(Store, "checkpoint", lambda self: True)
    return {}


class RecycleBin(InStateFolder):
    """Forget moves the record's texts to a recycle bin in the state folder, in clear (a soft
    delete), and answers "complete"."""

    def __init__(self, inner: Any, state_dir: Path) -> None:
        super().__init__(inner, state_dir)
        self.bin = state_dir / "recycle.jsonl"
        self.texts: dict[str, list[str]] = {}

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        value = envelope["output"]["value"] if envelope["ok"] else {}
        if tool == CAPTURE and "candidate_id" in value:
            components = arguments["payload"]["components"]
            self.texts[value["candidate_id"]] = [component["text"] for component in components]
        if tool == ADMIT and "record_id" in value.get("outcome", {}):
            self.texts[value["outcome"]["record_id"]] = self.texts.get(arguments["candidate_id"])
        if tool == FORGET and envelope["ok"]:
            with self.bin.open("a", encoding="utf-8") as recycled:
                recycled.write(json.dumps(self.texts.get(arguments["record_id"])) + "\n")
        return envelope


class ForgetPending(ServiceProxy):
    """Forget answers projection_invalidation "pending" (the erasure is left for later)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != FORGET:
            return envelope
        return edited(envelope, lambda value: value.update(projection_invalidation="pending"))


#: What the stdio mutant breaks: PRIV-007, judged after the stop.
ERASED_NEVER = Caught(("PRIV-007",), about={"PRIV-007": "once the server has stopped"})


def never_erases() -> None:
    """Forget marks the record tombstoned but keeps its row in the index, hidden from search by
    the record's state, and leaves the erasure "pending" for a later that never comes."""

    def tombstone(self: Store, stored: StoredRecord) -> None:
        self.connection.execute(
            "UPDATE records SET state = 'tombstoned', record = NULL WHERE rowid = ?",
            (stored.rowid,),
        )

    Store.tombstone = tombstone  # type: ignore[method-assign]
    Store.checkpoint = lambda self: False  # type: ignore[method-assign]


#: The mutants over stdio: name -> the function that plants it in the server's process, and
#: what it breaks.
STDIO: dict[str, tuple[Callable[[], None], Caught]] = {"never-erases": (never_erases, ERASED_NEVER)}
