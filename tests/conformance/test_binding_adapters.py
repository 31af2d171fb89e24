"""The process-env and http-headers bindings: each identity reaches the server its own way."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from engram_conformance.conformance.engram_memory.host import Host
from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.conformance.session import Session
from engram_conformance.conformance.targets.connection import KEPT_IDENTITY_CLIENTS
from engram_conformance.conformance.targets.descriptor import TargetDescriptor
from engram_conformance.conformance.targets.launch import LaunchedTarget, Workspace
from engram_conformance.spec.engram_memory import load

FIXTURE = str(Path(__file__).with_name("fixtures") / "echo_binding_server.py")
#: The echo server over stdio, one process per identity, its tenant in the environment.
ENV_BOUND = TargetDescriptor(
    name="env-bound",
    transport="stdio",
    command=(sys.executable, FIXTURE, "stdio"),
    binding_mode="process-env",
    binding_env={"ENGRAM_TENANT": "{tenant}"},
)


async def bound_tenants(descriptor: TargetDescriptor, root: Path) -> list[str]:
    spec = load()
    signer = ContextSigner(spec)
    workspace = Workspace(root, signer.write_public_key(root / "key.pem"))
    host = Host(spec, signer, "adapters")
    first, second = host.new_identity(), host.new_identity()
    target = LaunchedTarget(descriptor, workspace)
    tenants = []
    async with target.connect() as connection:
        session = Session(connection, 10)
        for identity in (first, second, first):
            claims = host.claims(identity, "engram_memory_search")
            observed = await session.call("engram_memory_search", {}, None, claims)
            tenants.append(json.loads(observed.text or "{}")["bound_tenant"])
        # a check's client of its own binds the identity it is opened for, whatever the call
        third = host.new_identity()
        async with session.extra_client(host.claims(third, "engram_memory_search")) as client:
            with session.over(client):
                observed = await session.call("engram_memory_search", {}, None, claims)
        assert json.loads(observed.text or "{}")["bound_tenant"] == third.tenant
    assert tenants[0] == first.tenant and tenants[1] == second.tenant
    return tenants


def test_process_env_starts_one_process_per_identity(tmp_path: Path) -> None:
    tenants = anyio.run(bound_tenants, ENV_BOUND, tmp_path)
    assert tenants[2] == tenants[0]


def test_http_headers_carry_each_identity(tmp_path: Path) -> None:
    descriptor = TargetDescriptor(
        name="header-bound",
        transport="http",
        url="http://127.0.0.1:{port}/mcp",
        command=(sys.executable, FIXTURE, "http", "{port}"),
        binding_mode="http-headers",
        binding_headers={"X-Engram-Tenant": "{tenant}"},
    )
    tenants = anyio.run(bound_tenants, descriptor, tmp_path)
    assert tenants[2] == tenants[0]


async def serving_processes(descriptor: TargetDescriptor, root: Path) -> list[int]:
    """The process that answers each of one more identity than are kept, then the first and
    the last again."""
    spec = load()
    signer = ContextSigner(spec)
    host = Host(spec, signer, "kept")
    identities = [host.new_identity() for _ in range(KEPT_IDENTITY_CLIENTS + 1)]
    target = LaunchedTarget(descriptor, Workspace(root, signer.write_public_key(root / "k.pem")))
    pids = []
    async with target.connect() as connection:
        session = Session(connection, 10)
        for identity in [*identities, identities[0], identities[-1]]:
            claims = host.claims(identity, "engram_memory_search")
            observed = await session.call("engram_memory_search", {}, None, claims)
            pids.append(json.loads(observed.text or "{}")["pid"])
    return pids


def test_process_env_keeps_the_recently_used_identities_open(tmp_path: Path) -> None:
    """One identity more than are kept closes the least recently used one's process: it gets
    a new process when it comes back, while the last one keeps its own."""
    pids = anyio.run(serving_processes, ENV_BOUND, tmp_path)
    first, last, first_again, last_again = pids[0], pids[-3], pids[-2], pids[-1]
    assert len(set(pids[:-2])) == KEPT_IDENTITY_CLIENTS + 1
    assert first_again != first
    assert last_again == last
