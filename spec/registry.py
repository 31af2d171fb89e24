"""The contracts this kit knows: one registry, the entry-point group
``engram_conformance.contracts``, read by both commands (``engram-conformance``,
``engram-reference``) and the pytest plugin.

An entry is ``NAME = "module:ATTRIBUTE"``, whose attribute is the contract's ``Registration``:
it names the contract's parts by dotted path, so reading the registry imports neither the
harness nor a reference server (the reference server's command starts without loading any
check; the harness never loads a reference server). A third contract is one entry in its
distribution's metadata (``[project.entry-points."engram_conformance.contracts"]``) and its own
packages. It lives here, at the bottom of the dependency graph, because both the harness and
the reference implementation read it.

Nothing is read at import: the entries are looked up when asked, so that an entry installed
(or put on ``sys.path``) after the import counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from types import MappingProxyType
from typing import Any

GROUP = "engram_conformance.contracts"
#: the contract a command means when it is told none (and a run reports under when the server
#: lists none of any contract's tools)
DEFAULT = "engram-memory"


@dataclass(frozen=True, kw_only=True)
class Registration:
    """Where a contract's parts are, by dotted path (nothing is imported until it is used)."""

    #: ``module:attribute`` of its harness plug-in, a ``conformance.contracts.Contract``
    plugin: str
    #: ``module:attribute`` of what a target descriptor may promise to it, its plug-in's
    #: ``settings`` (a ``conformance.targets.contract_tables.ContractSettings``) in a module
    #: light enough to import for every registered contract before any run: a descriptor is
    #: validated against every contract's tables, and that must not load their checks. None:
    #: it reads no table of a descriptor
    settings: str | None = None
    #: the module of its reference server's serve options and ``build`` (``engram-reference
    #: serve --contract NAME``); None when the kit ships no reference server for it
    serving: str | None = None
    #: what ``serve --contract NAME`` needs besides ``--state-dir`` (placeholders allowed)
    reference_arguments: tuple[str, ...] = ()
    #: what those arguments make the reference promise: its descriptor's ``[policy]`` table
    reference_policy: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    #: ``package:file`` of its generated rule index (``conformance.rule_index``), which
    #: ``rules`` and ``explain`` read instead of importing its checks; None: they import them
    rule_index: str | None = None


class UnknownContract(ValueError):
    """A contract name the registry has no entry for."""


class BadRegistration(Exception):
    """An entry of the registry that does not lead to a ``Registration``."""


def _entries() -> dict[str, EntryPoint]:
    """The group's entries by name: the default first, then by name (the first of a name wins)."""
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=GROUP):
        found.setdefault(entry.name, entry)
    return {name: found[name] for name in sorted(found, key=lambda name: (name != DEFAULT, name))}


def names() -> list[str]:
    """The registered contracts' names (read from the metadata: no contract is imported)."""
    return list(_entries())


def registration(name: str) -> Registration:
    """The registration of ``name``; UnknownContract names the known contracts,
    BadRegistration says what is wrong with an entry."""
    entries = _entries()
    if not entries:  # an install whose metadata predates the group
        raise UnknownContract(
            f"unknown contract {name!r}: no contract is registered under {GROUP}; install "
            "engram-conformance again (pip install -e . in a checkout) to register its own"
        )
    if name not in entries:
        raise UnknownContract(f"unknown contract {name!r}: this kit knows {', '.join(entries)}")
    entry = entries[name]
    try:
        found = entry.load()
    except (ImportError, AttributeError) as error:
        raise BadRegistration(f"the {GROUP} entry {name} = {entry.value}: {error}") from None
    if not isinstance(found, Registration):
        problem = f"names a {type(found).__name__}, not a Registration"
        raise BadRegistration(f"the {GROUP} entry {name} = {entry.value} {problem}")
    return found
