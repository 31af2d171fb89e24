"""The bundled reference server as a target (``engram-conformance run --reference``)."""

from __future__ import annotations

import sys

from .. import contracts
from .descriptor import TargetDescriptor


def reference_descriptor(contract: str = contracts.DEFAULT) -> TargetDescriptor:
    """``engram-reference serve --contract CONTRACT`` over stdio, run by this Python, with its
    default policy and what the contract's server needs (the host's public key, say).

    Its whole state folder is listed as state files, as in ``targets/reference.toml``.
    """
    command = (
        sys.executable,
        "-m",
        "engram_conformance.reference_impl",
        "serve",
        "--contract",
        contract,
        "--state-dir",
        "{state_dir}",
        *contracts.contract(contract).reference_arguments,
    )
    return TargetDescriptor(
        name="reference",
        transport="stdio",
        command=command,
        state_files=("{state_dir}/**",),
        contract=contract,
    )
