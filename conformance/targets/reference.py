"""The bundled reference server as a target (``engram-conformance run --reference``)."""

from __future__ import annotations

import sys

from engram_conformance.spec import registry

from .contract_tables import CORE_POLICY_KEYS, SHARED_TABLE
from .descriptor import DescriptorError, TargetDescriptor


def reference_descriptor(contract: str = registry.DEFAULT) -> TargetDescriptor:
    """``engram-reference serve --contract CONTRACT`` over stdio, run by this Python, with its
    contract's arguments (the host's public key, say) and the policy they make it promise, as
    its registration gives them. UnknownContract for a contract the registry has no entry for,
    DescriptorError for one that ships no reference server.

    It starts in an empty folder of the run, and its whole state folder is listed as state
    files, as in ``targets/reference.toml``.
    """
    registered = registry.registration(contract)
    policy = dict(registered.reference_policy)
    if registered.serving is None:
        problem = f"the {contract} contract has no reference server in this kit"
        raise DescriptorError("--reference", "", problem)
    command = (
        sys.executable,
        "-m",
        "engram_conformance.reference_impl",
        "serve",
        "--contract",
        contract,
        "--state-dir",
        "{state_dir}",
        *registered.reference_arguments,
    )
    return TargetDescriptor(
        name="reference",
        transport="stdio",
        command=command,
        cwd="{work_dir}",
        claim=tuple(policy["tools"]) if "tools" in policy else None,
        tables={SHARED_TABLE: {k: v for k, v in policy.items() if k not in CORE_POLICY_KEYS}},
        state_files=("{state_dir}/**",),
        contract=contract,
    )
