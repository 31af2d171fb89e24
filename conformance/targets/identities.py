"""For whom a call is made, as far as launching a target is concerned.

A contract may carry the identity of a call's caller in the call itself (then every call travels
on one client), or outside it: in the environment of a server process started for that identity,
or in the headers of its HTTP requests (then each identity gets a client of its own). How is the
contract's to say, from what a target's descriptor promises (``ContractSettings.identities``);
the launch only fills the templates it is given with an identity's parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Identities:
    """How identities reach a target: their parts, and what carries them outside a call."""

    #: the names of an identity's parts: each is a placeholder (``{name}``) of the descriptor's
    #: templates, filled with the identity's part (``discovery`` before any check runs)
    parts: tuple[str, ...] = ()
    #: each identity gets a client of its own: a process started with ``env``, or HTTP requests
    #: carrying ``headers`` (templated); False: one client carries every identity's calls
    per_client: bool = False
    env: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def in_the_call(self) -> bool:
        """Whether calls carry the identities themselves: nothing travels outside them, so one
        client serves every identity."""
        return not (self.per_client or self.env or self.headers)

    @property
    def discovery(self) -> dict[str, str]:
        """The identity that fills the templates of the connection used before any check."""
        return {name: f"discovery-{name}" for name in self.parts}

    def of(self, claims: Mapping[str, Any] | None) -> dict[str, str]:
        """The identity a call's ``claims`` name: each part, empty when they lack it."""
        return {name: str((claims or {}).get(name, "")) for name in self.parts}


#: what a contract that says nothing gets: every call on one client, no part to fill
IN_THE_CALL = Identities()
