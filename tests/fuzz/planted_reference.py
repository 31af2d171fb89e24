"""The engram-memory reference over stdio with a bug the lifecycle machine finds planted: a
capture replay answers ``duplicate_exact`` with the id of a candidate made anew (IDEM-001;
``tests/mutants/engram_memory/catalog/idempotency.py``'s ``ReplayAnswersNewCandidate``).

``python planted_reference.py serve --state-dir ... --host-public-key ...`` serves as
``engram-reference serve`` does, the bug planted in this process.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

#: The folder holding the ``tests`` package: the mutant is imported from there.
REPO_ROOT = Path(__file__).resolve().parents[2]

if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))
    from engram_conformance.reference_impl import cli
    from engram_conformance.reference_impl.engram_memory import serving

    from tests.mutants.engram_memory.catalog.idempotency import ReplayAnswersNewCandidate

    sound = serving.MemoryService

    def planted(*args: Any, **kwargs: Any) -> Any:
        return ReplayAnswersNewCandidate(sound(*args, **kwargs))

    serving.MemoryService = planted  # type: ignore[misc]
    cli.main(sys.argv[1:])
