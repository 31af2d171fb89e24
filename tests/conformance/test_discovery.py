"""A server whose contract nothing names is started as no contract's to list its tools
(``launching.discovering``): a host that writes no key, identities in the calls; as a
contract's only when the descriptor asks for that contract's launch."""

from __future__ import annotations

from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.launching import discovering
from engram_conformance.conformance.targets.descriptor import TargetDescriptor, stdio_descriptor
from engram_conformance.conformance.targets.identities import IN_THE_CALL


def test_a_command_alone_is_started_as_no_contracts() -> None:
    with discovering(stdio_descriptor("server --stdio", every_settings())) as started:
        target, host, contract = started
        assert contract is None
        assert target.workspace.host_public_key_file is None
        assert target.identities == IN_THE_CALL
        assert host.write_public_key(target.workspace.root / "key.pem") is None


def test_a_key_file_it_names_asks_for_the_contract_whose_host_writes_one() -> None:
    descriptor = stdio_descriptor("server --key {host_public_key_file}", every_settings())
    with discovering(descriptor) as (target, _, contract):
        assert contract is not None
        assert contract.name == "engram-memory"
        assert target.workspace.host_public_key_file is not None
        assert target.unfilled() == set()


def test_identities_its_tables_carry_outside_the_calls_ask_for_that_contract() -> None:
    descriptor = TargetDescriptor(
        name="outside",
        transport="stdio",
        command=("server",),
        tables={"binding": {"mode": "process-env", "env": {"WHO": "{tenant}"}}},
    )
    with discovering(descriptor) as (target, _, contract):
        assert contract is not None
        assert contract.name == "engram-memory"
        assert target.identities.per_client
        assert target.unfilled() == set()


def test_a_placeholder_no_launch_fills_leaves_it_no_contracts() -> None:
    """No contract is picked for a typo: the start then names the unknown placeholder."""
    with discovering(stdio_descriptor("server {nope}", every_settings())) as (target, _, contract):
        assert contract is None
        assert target.unfilled() == {"nope"}
