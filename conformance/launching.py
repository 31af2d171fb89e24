"""The library run API: launch a descriptor's target, find the contract it speaks, run it.

``run_launched`` runs a contract that is known before the server starts (what the pytest
plugin, reproductions and the benchmarks call); ``run_recognising`` finds the contract on the
run's own first connection, so that the server is started once. A server whose contract is not
yet known is started as no contract's (``discovering``): a host that signs nothing, identities
in the calls, unless the descriptor itself asks for a contract's launch. Nothing here knows a
command-line option.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar

import anyio

from . import contracts
from .contracts import Contract, UnboundHost
from .exceptions import ServerFault
from .interruption import until_interrupted
from .runner import Progress, RunOptions, RunResult, run
from .session import Session
from .targets.connection import Connection
from .targets.descriptor import DescriptorError, TargetDescriptor
from .targets.identities import IN_THE_CALL, Identities
from .targets.launch import KEY_FILE, LaunchedTarget, Workspace


@contextlib.contextmanager
def launched(
    descriptor: TargetDescriptor, host: Any, contract: Contract
) -> Iterator[LaunchedTarget]:
    """The descriptor's target in a scratch workspace (state folder, the host's public key),
    removed after, reached by each identity as ``contract`` reads the descriptor
    (``ContractSettings.identities``)."""
    with _launched(descriptor, host, _identities(contract, descriptor)) as target:
        yield target


@contextlib.contextmanager
def _launched(
    descriptor: TargetDescriptor, host: Any, identities: Identities
) -> Iterator[LaunchedTarget]:
    with tempfile.TemporaryDirectory(prefix="engram-conformance-") as scratch:
        root = Path(scratch)
        workspace = Workspace(root, host.write_public_key(root / "host-public-key.pem"))
        yield LaunchedTarget(descriptor, workspace, identities)


def _identities(contract: Contract, descriptor: TargetDescriptor) -> Identities:
    settings = contract.settings
    return settings.identities(settings.parse(descriptor.tables))


def chosen_contract(descriptor: TargetDescriptor, forced: str | None = None) -> Contract:
    """The contract to test: ``forced`` (``--contract``), else the descriptor's ``[contract]
    name``, else the one whose tools the server lists (the target is started to ask), else
    ``contracts.DEFAULT``, whose run then says that the server lists none of its tools.
    UnknownContract for a name no plug-in has; DescriptorError when ``[policy] tools`` claims a
    tool the contract does not have; StartupFailed when the server would not start;
    Interrupted (its server stopped) on SIGINT or SIGTERM."""
    name = forced or descriptor.contract
    if name is not None:
        chosen = contracts.contract(name)
    else:
        chosen = anyio.run(until_interrupted, functools.partial(_recognised, descriptor))
    claims_only_tools_of(chosen, descriptor)
    return chosen


def claims_only_tools_of(contract: Contract, descriptor: TargetDescriptor) -> None:
    """The descriptor's schema cannot know which contract a run tests, so the tools a
    descriptor claims are checked against the contract's once it is chosen."""
    claimed = descriptor.claim or ()
    known = contract.load_spec().tools
    unknown = [tool for tool in claimed if tool not in known]
    if unknown:
        raise DescriptorError(
            descriptor.source or descriptor.name,  # a descriptor read from no file: its name
            "policy.tools",
            f"names {', '.join(unknown)}, no tool of the {contract.name} contract "
            f"(its tools: {', '.join(known)})",
        )


async def _recognised(descriptor: TargetDescriptor) -> Contract:
    with discovering(descriptor) as (target, _, _):
        async with target.connect() as connection:
            return await _recognised_on(connection, target.call_timeout_s)


@contextlib.contextmanager
def discovering(
    descriptor: TargetDescriptor,
) -> Iterator[tuple[LaunchedTarget, Any, Contract | None]]:
    """The descriptor's target started before its contract is known, to list its tools: as
    no contract's (a host that writes no key, identities in the calls), unless the descriptor
    asks for a contract's launch (``_asked_for``); with the host it is started as, and that
    contract (None: none)."""
    asked = _asked_for(descriptor)
    if asked is None:
        host: Any = UnboundHost(None, secrets.token_hex(3))
        identities = IN_THE_CALL
    else:
        host = asked.host(asked.load_spec(), secrets.token_hex(3))
        identities = _identities(asked, descriptor)
    with _launched(descriptor, host, identities) as target:
        yield target, host, asked


def _asked_for(descriptor: TargetDescriptor) -> Contract | None:
    """The first registered contract whose launch the descriptor asks for: one that reads its
    tables as identities carried outside the calls, or, when the descriptor names what no
    contract's launch fills (a host's key file, an identity's part), one whose launch fills
    it. None: no contract's launch serves."""
    with tempfile.TemporaryDirectory(prefix="engram-conformance-") as scratch:
        wanting = LaunchedTarget(descriptor, Workspace(Path(scratch), None)).unfilled()
    for name in contracts.names():
        settings = contracts.settings(name)
        if not settings.identities(settings.parse(descriptor.tables)).in_the_call:
            return contracts.contract(name)
        if wanting:
            contract = contracts.contract(name)
            host = contract.host(contract.load_spec(), secrets.token_hex(3))
            with _launched(descriptor, host, _identities(contract, descriptor)) as target:
                if not target.unfilled():
                    return contract
    return None


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
    policy, options = promised(contract, descriptor, options)
    host = contract.host(spec, secrets.token_hex(3))
    with launched(descriptor, host, contract) as server:
        work = functools.partial(run, server, contract, spec, policy, host, options, progress)
        return anyio.run(until_interrupted, work), server


def promised(
    contract: Contract, descriptor: TargetDescriptor, options: RunOptions
) -> tuple[Any, RunOptions]:
    """What the descriptor promises to ``contract``: its policy, as the contract reads the
    descriptor's tables (``Contract.settings``), and the options with the tools it claims."""
    return contract.settings.parse(descriptor.tables), replace(options, claim=descriptor.claim)


class Settled(Protocol):
    """What a run needs once its contract is known: the spec and the options."""

    @property
    def spec(self) -> Any: ...

    @property
    def options(self) -> RunOptions: ...


S = TypeVar("S", bound=Settled)


def run_recognising(
    descriptor: TargetDescriptor,
    settle: Callable[[Contract], S],
    progress: Progress | None = None,
) -> tuple[S, RunResult, LaunchedTarget]:
    """Run a target whose contract nothing names, starting its server once: started as no
    contract's (``discovering``), list the tools on the first connection, recognise the
    contract (else the default), ``settle`` the run for it (what ``settle`` raises stops the
    run), and run it on that same connection. A recognised contract that would reach the server
    otherwise (``_goes_on``: identities outside the calls, its host's key) starts it again as
    its own. StartupFailed and Interrupted as ``run_launched``."""
    with discovering(descriptor) as (server, host, started_as):
        work = functools.partial(_recognised_run, server, host, started_as, settle, progress)
        settled, contract, result = anyio.run(until_interrupted, work)
    if result is None:
        result, server = run_launched(contract, settled.spec, descriptor, settled.options, progress)
    return settled, result, server


async def _recognised_run(
    server: LaunchedTarget,
    host: Any,
    started_as: Contract | None,
    settle: Callable[[Contract], S],
    progress: Progress | None,
) -> tuple[S, Contract, RunResult | None]:
    stack = AsyncExitStack()
    connection = await stack.enter_async_context(server.connect())
    try:
        contract = await _recognised_on(connection, server.call_timeout_s)
        settled = settle(contract)
        if contract is not started_as:
            host = contract.host(settled.spec, secrets.token_hex(3))
            if not _goes_on(server, contract, host):
                await stack.aclose()
                return settled, contract, None
    except BaseException as error:  # closed as ``async with`` would close it
        await stack.__aexit__(type(error), error, error.__traceback__)
        raise
    opened = _Opened(connection, stack)
    policy, options = promised(contract, server.descriptor, settled.options)
    try:
        result = await run(server, contract, settled.spec, policy, host, options, progress, opened)
    finally:  # nothing left once the runner closed it; else the run failed before it could
        await stack.aclose()
    return settled, contract, result


def _goes_on(server: LaunchedTarget, contract: Contract, host: Any) -> bool:
    """Whether ``contract``'s run may go on on ``server``, started as no contract's launch or
    another's: its identities travel in the calls (one client carries them all), and its host
    has no key of its own, or the server was given none."""
    given_a_key = server.workspace.host_public_key_file is not None
    key_named = given_a_key and KEY_FILE in server.placeholders()
    return _identities(contract, server.descriptor).in_the_call and not (
        key_named and _has_a_key(host)
    )


async def _recognised_on(connection: Connection, call_timeout_s: float) -> Contract:
    """The contract whose tools the server lists, else the default (whose run then says why:
    the server lists none of its tools, or they could not be read)."""
    try:
        _, tools = await Session(connection, call_timeout_s).list_tools()
    except ServerFault:
        return contracts.contract(contracts.DEFAULT)
    found = contracts.recognised([tool.name for tool in tools])
    return found or contracts.contract(contracts.DEFAULT)


def _has_a_key(host: Any) -> bool:
    with tempfile.TemporaryDirectory(prefix="engram-conformance-") as scratch:
        return host.write_public_key(Path(scratch) / "host-public-key.pem") is not None


class _Opened:
    """A connection opened before the run, handed to the runner as its first connection: the
    runner closes it, as it closes those it opens."""

    def __init__(self, connection: Connection, stack: AsyncExitStack) -> None:
        self.connection, self.stack = connection, stack

    async def __aenter__(self) -> Connection:
        return self.connection

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        return await self.stack.__aexit__(kind, error, traceback)
