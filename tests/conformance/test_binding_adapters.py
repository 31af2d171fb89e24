"""The process-env and http-headers bindings: each identity reaches the server its own way."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
from engram_conformance.conformance.engram_memory.host import Host
from engram_conformance.conformance.engram_memory.plugin import CONTRACT
from engram_conformance.conformance.engram_memory.settings import identities, parse
from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.conformance.launching import run_launched
from engram_conformance.conformance.runner import RunOptions
from engram_conformance.conformance.session import Session
from engram_conformance.conformance.targets.connection import KEPT_IDENTITY_CLIENTS
from engram_conformance.conformance.targets.descriptor import TargetDescriptor
from engram_conformance.conformance.targets.identities import Identities
from engram_conformance.conformance.targets.launch import LaunchedTarget, Workspace
from engram_conformance.spec.engram_memory import load

FIXTURE = str(Path(__file__).with_name("fixtures") / "echo_binding_server.py")
#: The echo server over stdio, one process per identity, its tenant in the environment.
ENV_BOUND = TargetDescriptor(
    name="env-bound",
    transport="stdio",
    command=(sys.executable, FIXTURE, "stdio"),
    tables={"binding": {"mode": "process-env", "env": {"ENGRAM_TENANT": "{tenant}"}}},
)


def carried(descriptor: TargetDescriptor) -> Identities:
    """How engram-memory carries identities to the target ``descriptor``'s binding names."""
    return identities(parse(descriptor.tables))


#: The reference over stdio, one process per identity, bound by its environment.
ENV_BOUND_REFERENCE = TargetDescriptor(
    name="env-bound-reference",
    transport="stdio",
    command=(
        sys.executable,
        str(Path(__file__).with_name("fixtures") / "env_bound_reference.py"),
        "{state_dir}",
        "{host_public_key_file}",
    ),
    tables={
        "binding": {
            "mode": "process-env",
            "env": {
                "ENGRAM_TENANT": "{tenant}",
                "ENGRAM_WORKSPACE": "{workspace}",
                "ENGRAM_PRINCIPAL": "{principal}",
            },
        }
    },
)


async def bound_tenants(descriptor: TargetDescriptor, root: Path) -> list[str]:
    spec = load()
    signer = ContextSigner(spec)
    workspace = Workspace(root, signer.write_public_key(root / "key.pem"))
    host = Host(spec, signer, "adapters")
    first, second = host.new_identity(), host.new_identity()
    target = LaunchedTarget(descriptor, workspace, carried(descriptor))
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
        tables={"binding": {"mode": "http-headers", "headers": {"X-Engram-Tenant": "{tenant}"}}},
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
    workspace = Workspace(root, signer.write_public_key(root / "k.pem"))
    target = LaunchedTarget(descriptor, workspace, carried(descriptor))
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


def test_a_check_needing_signed_meta_is_not_applicable_to_another_binding() -> None:
    """HOST-001 forges a signed context, which a process-env target never reads: the run does
    not start the check and says why (``calls.signed_meta_only``), while a check any binding
    serves (ERR-001, about the answers' envelope) runs and passes."""
    options = RunOptions(only=("HOST-001", "ERR-001"), seed=1)
    result, _ = run_launched(CONTRACT, load(), ENV_BOUND_REFERENCE, options)
    forged = result.verdicts["HOST-001"]
    assert forged.verdict == "not_applicable"
    assert forged.reason == "needs the signed-meta binding; the target binds by process-env"
    assert result.verdicts["ERR-001"].verdict == "pass"
