"""The bundled reference server as a target (``engram-conformance run --reference``)."""

from __future__ import annotations

import sys

from .. import contracts
from .descriptor import Policy, TargetDescriptor


def reference_descriptor(contract: str = contracts.DEFAULT) -> TargetDescriptor:
    """``engram-reference serve --contract CONTRACT`` over stdio, run by this Python, with its
    contract's arguments (the host's public key, say) and the policy they make it promise.

    It starts in an empty folder of the run, and its whole state folder is listed as state
    files, as in ``targets/reference.toml``.
    """
    plugin = contracts.contract(contract)
    command = (
        sys.executable,
        "-m",
        "engram_conformance.reference_impl",
        "serve",
        "--contract",
        contract,
        "--state-dir",
        "{state_dir}",
        *plugin.reference_arguments,
    )
    return TargetDescriptor(
        name="reference",
        transport="stdio",
        command=command,
        cwd="{work_dir}",
        policy=Policy(**plugin.reference_policy),
        state_files=("{state_dir}/**",),
        contract=contract,
    )
