"""The reference server over stdio whose forget leaves the text in the search index and answers
"pending": PRIV-007's mutant for the judgement after a clean stop, which only a server the
harness starts (and stops) can have.

``python erasure_server.py MUTANT serve --state-dir ... --host-public-key ...``
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from engram_conformance.reference_impl import cli
from engram_conformance.reference_impl.engram_memory.store import Store, StoredRecord


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


MUTANTS: dict[str, Callable[[], Any]] = {"never-erases": never_erases}

if __name__ == "__main__":
    MUTANTS[sys.argv[1]]()
    cli.main(sys.argv[2:])
