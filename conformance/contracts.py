"""The plug-in seam: the one way the harness core reaches a protocol's contract.

A contract registers in the kit's registry (``spec.registry``, an entry-point group); its
registration names its plug-in, a ``Contract`` value. ``Contract`` is assembled from parts, as
python-jsonschema's ``create()`` assembles a validator: a contract gives what only it knows (its
spec, its checks, its words) and takes the defaults for the rest (a host that binds nothing,
the shared check context, a replay that sends each call again as recorded, ...).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from engram_conformance.spec import registry
from engram_conformance.spec.registry import DEFAULT, UnknownContract

from .check_registry import Checks
from .spec_digest import spec_identity
from .targets.contract_tables import NO_SETTINGS, ContractSettings

if TYPE_CHECKING:
    from .check_context import BaseContext
    from .session import Session
    from .transcripts import Replayed

__all__ = [
    "DEFAULT",
    "Contract",
    "ContractSpec",
    "UnboundHost",
    "UnknownContract",
    "contract",
    "names",
]


class ContractSpec(Protocol):
    """What the core reads of a contract's loaded spec."""

    @property
    def rules(self) -> Mapping[str, Any]: ...  # id -> rule: id, family, level, statement,

    # source_document, source_section, tools, tools_each, testable, untestable_reason

    @property
    def tools(self) -> Mapping[str, Any]: ...  # the contract's tool names


S = TypeVar("S", bound=ContractSpec)
S_co = TypeVar("S_co", bound=ContractSpec, covariant=True)


class SpecLoader(Protocol[S_co]):
    def __call__(self, root: Path | None = None) -> S_co: ...


class Host(Protocol):
    """The host the harness plays for one run (otherwise opaque to the core)."""

    def write_public_key(self, path: Path) -> Path | None:
        """Write what the descriptor's ``{host_public_key_file}`` names; None: nothing."""


class UnboundHost:
    """The default host: it binds no identity and signs nothing, so it has no key to write."""

    def __init__(self, spec: Any, run_id: str) -> None:
        self.run_id = run_id

    def write_public_key(self, path: Path) -> Path | None:
        return None


class Problem(Protocol):
    """A problem ``spec lint`` prints."""

    file: str
    pointer: str
    message: str


def _no_problems(root: Path, seed_text: str | None) -> Iterable[Problem]:
    return ()


def _rules_counted(spec: ContractSpec) -> str:
    return f"{len(spec.rules)} rules, {len(spec.tools)} tools"


def _full_when_every_tool(spec: ContractSpec, offered: list[str]) -> tuple[str, str]:
    if len(offered) == len(spec.tools):
        return "full", "Full conformance class (every tool)"
    return "partial", f"Partial conformance class ({', '.join(offered)})"


def _every_tool(spec: ContractSpec, listed: Collection[str]) -> tuple[str, ...]:
    return tuple(spec.tools)


def _shared_context(host: Any, **shared: Any) -> BaseContext:
    from .check_context import BaseContext

    return BaseContext(**shared)


async def _as_recorded(
    session: Session, host: Any, entries: list[dict[str, Any]]
) -> list[Replayed]:
    from .transcripts import replay_as_recorded

    return await replay_as_recorded(session, entries)


@dataclass(frozen=True, kw_only=True)
class Contract(Generic[S]):
    """A protocol's plug-in: what the core needs of a contract, with defaults for what most
    contracts share."""

    #: the name reports, baselines, SARIF and pytest items carry (its registry entry's name)
    name: str
    #: the contract's spec, from a folder (default: the one shipped with it)
    load_spec: SpecLoader[S]
    #: the spec folder shipped with the kit, and the error a bad one raises
    spec_root: Path
    spec_file_error: type[Exception] = ValueError
    #: its scripted and per-call checks
    checks: Callable[[], Checks]
    #: the check that runs when the server lists none of the contract's tools (its discovery)
    discovery_check: str
    #: the check that searches the contract's state machine, which ``engram-conformance fuzz``
    #: runs as a campaign (None: the contract has no state machine to fuzz)
    model_check: str | None = None
    #: why every other rule is then not applicable
    no_tools: str
    #: the contract's Markdown reference, and where ``spec docs`` writes it
    markdown: Callable[[S], str]
    docs_page: str
    #: the contract as an OpenAPI 3.1 document (one POST operation per tool)
    openapi: Callable[[S], dict[str, Any]]
    #: the contract's rules as a path of the kit's repository (``spec/<name>/rules.json``):
    #: where SARIF results point when the run named no descriptor file (None: the kit's
    #: layout, ``spec/<contract>/rules.json``)
    rules_file: str | None = None
    #: every problem of a spec folder (``.file``, ``.pointer``, ``.message``)
    lint: Callable[[Path, str | None], Iterable[Problem]] = _no_problems
    #: what a sound spec holds, in a few words (``spec lint``'s last line)
    spec_summary: Callable[[S], str] = _rules_counted
    #: ``contract_version``, ``spec_version`` and ``digest``, for the report's ``spec``
    identity: Callable[[S], dict[str, str]] = spec_identity
    #: ``partial`` or ``full`` and its words, for a server offering (listing and claiming) at
    #: least one of the contract's tools
    conformance_class: Callable[[S, list[str]], tuple[str, str]] = _full_when_every_tool
    #: the tools a target whose descriptor claims none is taken to claim, when the server
    #: lists these: those the contract's text requires, and the optional ones listed
    default_claim: Callable[[S, Collection[str]], tuple[str, ...]] = _every_tool
    #: what a target's descriptor may promise to it: the tables it reads (their JSON Schema)
    #: and the frozen policy it makes of them, which its checks read as ``ctx.policy``
    settings: ContractSettings[Any] = NO_SETTINGS
    #: the host the harness plays for one run (spec, run id)
    host: Callable[[S, str], Host] = UnboundHost
    #: a check's context: ``check_context.BaseContext``'s arguments plus the host
    context: Callable[..., BaseContext] = _shared_context
    #: ``engram-conformance replay``: a transcript's calls sent again, re-bound to this run
    replay: Callable[[Session, Any, list[dict[str, Any]]], Awaitable[list[Replayed]]] = _as_recorded

    def recognises(self, tools: Collection[str]) -> bool:
        """Whether a server listing ``tools`` speaks this contract: it lists one of its tools."""
        return bool(set(tools) & set(self.load_spec().tools))


def names() -> list[str]:
    """The registered contracts, the default first (computed when asked: never frozen)."""
    return registry.names()


def contract(name: str) -> Contract[Any]:
    """The plug-in of ``name``; UnknownContract names the known ones, BadRegistration says
    what is wrong with an entry that leads to no plug-in of that name (or to one whose
    ``settings`` are not those its registration names)."""
    path = registry.registration(name).plugin
    plugin = _found(name, "plug-in", path)
    if not isinstance(plugin, Contract) or plugin.name != name:
        raise registry.BadRegistration(f"{name}'s plug-in {path} is no Contract named {name!r}")
    if plugin.settings is not settings(name):
        raise registry.BadRegistration(
            f"{name}'s plug-in {path} has settings other than its registration's"
        )
    return plugin


def settings(name: str) -> ContractSettings[Any]:
    """What a descriptor may promise to ``name`` (its plug-in's ``settings``), read from the
    module its registration names, without importing its plug-in (and so its checks)."""
    path = registry.registration(name).settings
    if path is None:
        return NO_SETTINGS
    found = _found(name, "settings", path)
    if not isinstance(found, ContractSettings):
        raise registry.BadRegistration(f"{name}'s settings {path} are no ContractSettings")
    return found


def _found(name: str, what: str, path: str) -> Any:
    """The attribute a registration's ``module:attribute`` names."""
    module, _, attribute = path.partition(":")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise registry.BadRegistration(f"{name}'s {what} {path}: {error}") from None


def every_settings() -> list[ContractSettings[Any]]:
    """Every registered contract's descriptor tables, which a descriptor is validated against
    before the run knows its contract (``targets.descriptor.load_descriptor``): only their
    registrations' settings modules are imported, no plug-in."""
    return [settings(name) for name in names()]


def recognised(tools: Collection[str]) -> Contract[Any] | None:
    """The first contract whose tools the server lists, if any."""
    for name in names():
        found = contract(name)
        if found.recognises(tools):
            return found
    return None
