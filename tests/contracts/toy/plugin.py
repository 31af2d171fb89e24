"""The toy contract's plug-in: what ``conformance.contracts.Contract`` asks of a contract."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engram_conformance.conformance.check_registry import Checks

from . import checks
from .spec import ECHO, SPEC, ToySpec


class ToyHost:
    """The toy binds no identity: its host only names the run."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id

    def write_public_key(self, path: Path) -> None:
        return None  # no key: a descriptor asking for {host_public_key_file} cannot start


class Toy:
    name = "toy"
    discovery_check = "echo_answers_its_text"
    no_tools = "no toy tools discovered: the server lists no toy_echo"
    reference_arguments: tuple[str, ...] = ()
    reference_policy = MappingProxyType({})
    spec_root = Path(__file__).parent
    spec_file_error = ValueError
    docs_page = "docs/toy.md"

    def load_spec(self, root: Path | None = None) -> ToySpec:
        return SPEC

    def lint(self, root: Path, seed_text: str | None) -> Iterator[Any]:
        return iter(())

    def spec_summary(self, spec: ToySpec) -> str:
        return f"{len(spec.rules)} rule"

    def markdown(self, spec: ToySpec) -> str:
        return "".join(f"- {rule.id}: {rule.statement}\n" for rule in spec.rules.values())

    def openapi(self, spec: ToySpec) -> dict[str, Any]:
        return {"openapi": "3.1.0", "paths": {}}

    def identity(self, spec: ToySpec) -> dict[str, str]:
        return {
            "contract_version": "0.1.0",
            "spec_version": "0.1.0",
            "digest": "sha256:" + "0" * 64,
        }

    def conformance_class(self, spec: ToySpec, offered: list[str]) -> tuple[str, str]:
        return "full", "Full toy conformance"

    def checks(self) -> Checks:
        return Checks(dict(checks.SCRIPTED), dict(checks.PER_CALL))

    def recognises(self, tools: Collection[str]) -> bool:
        return ECHO in tools

    def default_claim(self, spec: ToySpec, listed: Collection[str]) -> tuple[str, ...]:
        return (ECHO,)

    def host(self, spec: ToySpec, run_id: str) -> ToyHost:
        return ToyHost(run_id)

    def context(self, host: ToyHost, **shared: Any) -> checks.ToyContext:
        return checks.ToyContext(**shared)

    async def replay(self, session: Any, host: ToyHost, entries: list[dict[str, Any]]) -> list:
        raise NotImplementedError("the toy keeps no transcripts to replay")


CONTRACT = Toy()
