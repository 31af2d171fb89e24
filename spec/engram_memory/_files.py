"""Read the spec's JSON files from a folder, with errors that name the file and the place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import json_files
from ..json_files import read_paths

#: The folder that holds the spec shipped with this package.
PACKAGED_ROOT = Path(__file__).parent

#: Catalogue files: name -> the $id of the meta-schema that validates it.
CATALOGUES = {
    "contract.json": "urn:engram-conformance:meta:contract",
    "errors.json": "urn:engram-conformance:meta:errors",
    "lifecycle.json": "urn:engram-conformance:meta:lifecycle",
    "rules.json": "urn:engram-conformance:meta:rules",
}
EXAMPLES_META = "urn:engram-conformance:meta:examples"
SCHEMA_GLOBS = ("schemas/**/*.schema.json", "binding/*.schema.json")


class Documents(json_files.Documents):
    """Every JSON document of one spec folder, parsed, keyed by its path relative to the root."""

    def schemas(self) -> dict[str, Any]:
        return {p: d for p, d in self.by_path.items() if p.endswith(".schema.json")}

    def examples(self) -> dict[str, Any]:
        return {p: d for p, d in self.by_path.items() if p.startswith("examples/")}


def read_documents(root: Path = PACKAGED_ROOT) -> Documents:
    """Read every catalogue, schema, meta-schema and example file under ``root``."""
    root = Path(root)
    patterns = (*SCHEMA_GLOBS, "meta/*.meta.json", "examples/*.json")
    return Documents(root=root, by_path=read_paths(root, CATALOGUES, patterns))
