"""Read the mem spec's JSON files from a folder, with errors that name the file and the place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import json_files
from ..json_files import read_paths

#: The folder that holds the mem spec shipped with this package.
PACKAGED_ROOT = Path(__file__).parent

#: Catalogue files: name -> the $id of the meta-schema that validates it.
CATALOGUES = {
    "contract.json": "urn:engram-conformance:mem:meta:contract",
    "rules.json": "urn:engram-conformance:mem:meta:rules",
    "seed.json": "urn:engram-conformance:mem:meta:seed",
}
TOOLS_META = "urn:engram-conformance:mem:meta:tools"
TOOLS_GLOB = "tools/*.json"


class Documents(json_files.Documents):
    """Every JSON document of one mem spec folder, parsed, keyed by its path relative to the
    root."""

    def lines(self) -> dict[str, Any]:
        """The tool files (``tools/<version>.json``), in path order."""
        return {p: d for p, d in self.by_path.items() if p.startswith("tools/")}


def read_documents(root: Path = PACKAGED_ROOT) -> Documents:
    """Read every catalogue, tool file and meta-schema under ``root``."""
    root = Path(root)
    by_path = read_paths(root, CATALOGUES, (TOOLS_GLOB, "meta/*.meta.json"))
    return Documents(root=root, by_path=by_path)
