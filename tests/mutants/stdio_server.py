"""The reference server over stdio with one mutant of the catalogue planted: for mutants only a
server reading text (or one the harness starts and stops) can have, which ``run_against`` cannot
plant in process; ``described.run_described`` runs the harness's CLI against it.

``python stdio_server.py CONTRACT.FAMILY MUTANT serve --state-dir ... --host-public-key ...``
plants ``CONTRACT/catalog/FAMILY.py``'s ``STDIO[MUTANT]`` in this process, then serves as the
reference does.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from engram_conformance.reference_impl import cli

#: The folder holding the ``tests`` package: the catalogue is imported from there.
REPO_ROOT = Path(__file__).resolve().parents[2]

if __name__ == "__main__":
    named, mutant, *arguments = sys.argv[1:]
    contract, _, family = named.partition(".")
    sys.path.insert(0, str(REPO_ROOT))
    catalog = importlib.import_module(f"tests.mutants.{contract}.catalog.{family}")
    planting, _caught = catalog.STDIO[mutant]
    planting()
    cli.main(arguments)
