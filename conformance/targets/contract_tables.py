"""A contract's own tables of a target descriptor, and how the core composes them.

The core's descriptor schema (``descriptor.schema.json``) holds what every contract shares: the
name, ``[server]``, ``[state]``, ``[contract]`` and the claim (``[policy] tools``). What a
deployment promises beyond that is the contract's to say: its ``ContractSettings`` gives a JSON
Schema for each table it owns (``[policy]``'s other keys, tables of its own) and turns the tables
into its own frozen policy value. A descriptor is read before the run knows which contract it
tests (``tools/list`` may decide), so it is validated against the core's schema composed with
every registered contract's tables (``composed``): a key is accepted when some contract knows
it, and a misspelt one is worded as before, with the file, the dotted key and a "did you mean".
The contract chosen for the run then parses the tables (``ContractSettings.parse``), reading its
own keys.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from .identities import IN_THE_CALL, Identities

P = TypeVar("P")
P_co = TypeVar("P_co", covariant=True)

#: the descriptor's table whose keys the core and the contracts share: the core owns ``tools``
SHARED_TABLE = "policy"


@dataclass(frozen=True)
class NoPolicy:
    """The policy of a contract that lets a descriptor promise nothing."""


def _nothing_wrong(tables: Mapping[str, Any]) -> tuple[str, str] | None:
    return None


def _in_the_call(policy: Any) -> Identities:
    return IN_THE_CALL


def _no_policy(tables: Mapping[str, Any]) -> NoPolicy:
    return NoPolicy()


@dataclass(frozen=True, kw_only=True)
class ContractSettings(Generic[P_co]):
    """What a contract reads of a descriptor: its tables' schemas and its policy value."""

    #: table name -> the JSON Schema (draft 2020-12) of that table; ``[policy]``'s schema gives
    #: the contract's keys, beside the core's ``tools``
    tables: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: the contract's frozen policy, from the descriptor's tables as validated (a table or key
    #: the descriptor leaves out: the contract's default)
    parse: Callable[[Mapping[str, Any]], P_co] = _no_policy  # type: ignore[assignment]
    #: what the schema cannot say: (dotted key, problem) of a value it accepts and the
    #: contract cannot use, or None
    problem: Callable[[Mapping[str, Any]], tuple[str, str] | None] = _nothing_wrong
    #: how identities reach a target promising this policy (default: in each call, so one
    #: client carries every call and no template names an identity's part)
    identities: Callable[[Any], Identities] = _in_the_call
    #: the environment (templated) of a server started by its command line alone
    #: (``--stdio``), so that it keeps its state in the run's state folder
    stdio_env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_schema_file(
        cls, schema: Path, parse: Callable[[Mapping[str, Any]], P], **parts: Any
    ) -> ContractSettings[P]:
        """Settings whose tables are those a JSON Schema file describes as the properties of
        one object (a contract's ``descriptor_tables.schema.json``), read into a policy by
        ``parse``; ``parts``: the other fields."""
        tables = json.loads(schema.read_text(encoding="utf-8"))["properties"]
        return ContractSettings(tables=tables, parse=parse, **parts)


#: a contract's default: no table, nothing promised
NO_SETTINGS: ContractSettings[NoPolicy] = ContractSettings()


def composed(core: Mapping[str, Any], settings: Iterable[ContractSettings[Any]]) -> dict[str, Any]:
    """The core's descriptor schema with every contract's tables in it: a table several
    contracts give (``[policy]`` among them, which the core has too) accepts each one's keys."""
    schema = copy.deepcopy(dict(core))
    properties = schema["properties"]
    for each in settings:
        for name, table in each.tables.items():
            properties[name] = _merged(properties.get(name), table)
    return schema


def _merged(known: Mapping[str, Any] | None, table: Mapping[str, Any]) -> dict[str, Any]:
    """One table's schema from two that both describe it: the union of their keys (a key both
    give must satisfy both), or both schemas at once when they are no closed lists of keys."""
    if known is None:
        return copy.deepcopy(dict(table))
    if "properties" not in known or "properties" not in table:
        return {"allOf": [copy.deepcopy(dict(known)), copy.deepcopy(dict(table))]}
    merged = copy.deepcopy(dict(known))
    keys = merged["properties"]
    for key, value in table["properties"].items():
        keys[key] = value if key not in keys else {"allOf": [keys[key], value]}
    return merged


def contract_tables(data: Mapping[str, Any], core_keys: Iterable[str]) -> dict[str, Any]:
    """The descriptor's tables that are no core table's, and ``[policy]`` without the core's
    own keys: what a contract's ``parse`` reads."""
    core = set(core_keys)
    tables = {name: value for name, value in data.items() if name not in core}
    shared = data.get(SHARED_TABLE)
    if shared is not None:
        tables[SHARED_TABLE] = {k: v for k, v in shared.items() if k not in CORE_POLICY_KEYS}
    return tables


#: the keys of ``[policy]`` the core itself reads
CORE_POLICY_KEYS = ("tools",)
