"""The mem server written from seed 003 alone (``tests/conformance/mem/seed_written_server.py``)
with one planted bug in what it shows of every memory, for the mutants of
``test_read_back_mutants.py``: it lists no ``mem_get_observation``, so the kit reads a
memory's fields back from its ``mem_search`` record, and these mutants prove that path judges.

Usage: ``seed_written_mutant.py MUTANT --contract mem --state-dir DIR`` (as ``run_described``
starts a server; the server keeps its data in ``DIR``).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import anyio

SERVER = Path(__file__).parents[2] / "conformance" / "mem" / "seed_written_server.py"
#: mutant -> the value of a memory's field it always shows, whatever the memory holds
SHOWN: dict[str, dict[str, Any]] = {
    "DuplicatesNotCounted": {"duplicate_count": 0},
    "RevisionsNotCounted": {"revision_count": 1},
    "PersonalShownAsProject": {"scope": "project"},
}


def main() -> None:
    mutant, arguments = sys.argv[1], sys.argv[2:]
    os.environ["MEMSERVER_DATA"] = arguments[arguments.index("--state-dir") + 1]
    spec = importlib.util.spec_from_file_location("seed_written_server", SERVER)
    assert spec is not None and spec.loader is not None
    server = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(server)
    shown, frozen = server.Store.mem_dict, SHOWN[mutant]
    server.Store.mem_dict = staticmethod(lambda row: {**shown(row), **frozen})
    anyio.run(server.main)


if __name__ == "__main__":
    main()
