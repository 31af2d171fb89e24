"""The library run API: launch a descriptor's target, find the contract it speaks, run it.

``run_launched`` is what ``engram-conformance run``, the pytest plugin, reproductions and the
benchmarks call; nothing here knows a command-line option.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio

from . import contracts
from .contracts import Contract
from .exceptions import ServerFault
from .interruption import until_interrupted
from .runner import Progress, RunOptions, RunResult, run
from .session import Session
from .targets.descriptor import DescriptorError, TargetDescriptor
from .targets.launch import LaunchedTarget, Workspace


@contextlib.contextmanager
def launched(descriptor: TargetDescriptor, host: Any) -> Iterator[LaunchedTarget]:
    """The descriptor's target in a scratch workspace (state folder, the host's public key),
    removed after."""
    with tempfile.TemporaryDirectory(prefix="engram-conformance-") as scratch:
        root = Path(scratch)
        workspace = Workspace(root, host.write_public_key(root / "host-public-key.pem"))
        yield LaunchedTarget(descriptor, workspace)


def chosen_contract(descriptor: TargetDescriptor, forced: str | None = None) -> Contract:
    """The contract to test: ``forced`` (``--contract``), else the descriptor's ``[contract]
    name``, else the one whose tools the server lists (the target is started once to ask), else
    ``contracts.DEFAULT``, whose run then says that the server lists none of its tools.
    UnknownContract for a name no plug-in has; DescriptorError when ``policy.tools`` claims a
    tool the contract does not have; StartupFailed when the server would not start;
    Interrupted (its server stopped) on SIGINT or SIGTERM."""
    name = forced or descriptor.contract
    if name is not None:
        chosen = contracts.contract(name)
    else:
        asked = functools.partial(_recognised, descriptor)
        chosen = anyio.run(until_interrupted, asked) or contracts.contract(contracts.DEFAULT)
    _claims_only_tools_of(chosen, descriptor)
    return chosen


def _claims_only_tools_of(contract: Contract, descriptor: TargetDescriptor) -> None:
    """The descriptor's schema cannot know which contract a run tests, so the tools a
    descriptor claims are checked against the contract's once it is chosen."""
    claimed = descriptor.policy.tools or ()
    known = contract.load_spec().tools
    unknown = [tool for tool in claimed if tool not in known]
    if unknown:
        raise DescriptorError(
            descriptor.source,
            "policy.tools",
            f"names {', '.join(unknown)}, no tool of the {contract.name} contract "
            f"(its tools: {', '.join(known)})",
        )


async def _recognised(descriptor: TargetDescriptor) -> Contract | None:
    default = contracts.contract(contracts.DEFAULT)
    host = default.host(default.load_spec(), secrets.token_hex(3))
    with launched(descriptor, host) as target:
        async with target.connect() as connection:
            try:
                _, tools = await Session(connection, target.call_timeout_s).list_tools()
            except ServerFault:
                return None  # the run reports why the tools could not be read
    return contracts.recognised([tool.name for tool in tools])


def run_launched(
    contract: Contract,
    spec: Any,
    descriptor: TargetDescriptor,
    options: RunOptions,
    progress: Progress | None = None,
) -> tuple[RunResult, LaunchedTarget]:
    """Start the descriptor's target (``launched``), run the ``contract``'s checks ``options``
    select against it as a host with a fresh key, stop it; the result, and the target it ran
    against. Raises StartupFailed when the server would not start."""
    host = contract.host(spec, secrets.token_hex(3))
    with launched(descriptor, host) as server:
        work = functools.partial(
            run, server, contract, spec, descriptor.policy, host, options, progress
        )
        return anyio.run(until_interrupted, work), server
