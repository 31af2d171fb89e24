"""Which spec a run used: the identity a spec folder's ``contract.json`` gives and a digest of its
files, for the report's ``spec``."""

from __future__ import annotations

import hashlib
from typing import Any


def spec_identity(spec: Any) -> dict[str, str]:
    """``contract_version`` and ``spec_version`` of the spec's ``contract.json``, and ``digest``:
    sha256 over each of its files' relative path and bytes, in path order."""
    identity = spec.contract["identity"]
    hasher = hashlib.sha256()
    for relative in sorted(spec.documents.by_path):
        hasher.update(relative.encode() + b"\0" + (spec.documents.root / relative).read_bytes())
    return {
        "contract_version": identity["contract_version"],
        "spec_version": identity["spec_version"],
        "digest": "sha256:" + hasher.hexdigest(),
    }
