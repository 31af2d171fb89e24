"""Services that each ignore one argument a tool must refuse (issue 29): a mutant per extra
argument the checks send, one that selects maintenance (HOST-013), names what only the host binds
(HOST-014) or passes for an approval (GATE-009), and a trust class in a capture's payload
(HOST-017). Each drops its one argument before the reference sees the call, as a server with an
input schema open to that name does, and is caught by the rules that send it, with failures
about that argument alone where the rule's failures name it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engram_conformance.conformance.engram_memory.checks.binding import (
    MAINTENANCE_ARGUMENTS,
    host_owned,
)
from engram_conformance.conformance.engram_memory.checks.gate import CONFIRMATION_LIKE
from engram_conformance.conformance.engram_memory.host import Identity

from ...caught import Caught
from ..base import ServiceProxy

#: rule -> the extra arguments its check sends (the values do not matter to a mutant)
EXTRAS = {
    "HOST-013": set(MAINTENANCE_ARGUMENTS),
    "HOST-014": set(host_owned(Identity("t", "w", "p"), "2001-01-01T00:00:00.000Z")),
    "GATE-009": set(CONFIRMATION_LIKE),
}


class ArgumentIgnored(ServiceProxy):
    """Base: the argument ``name`` is dropped from every call before the reference sees it."""

    name: ClassVar[str]

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if isinstance(arguments, dict) and self.name in arguments:
            arguments = {key: value for key, value in arguments.items() if key != self.name}
        return super().call(tool, arguments, context)


def _ignoring(name: str) -> type:
    words = "".join(part[:1].upper() + part[1:] for part in name.split("_"))
    members = {
        "__doc__": f"Ignores an argument {name} on any tool (its input schema is open to it).",
        "__module__": __name__,
        "name": name,
    }
    return type(f"{words}ArgumentIgnored", (ArgumentIgnored,), members)


def _caught(name: str) -> Caught:
    """The rules whose checks send ``name``; HOST-013's and HOST-014's failures name it."""
    rules = tuple(rule for rule, names in EXTRAS.items() if name in names)
    about = {rule: f"with an argument {name}:" for rule in rules if rule.startswith("HOST")}
    return Caught(rules, about=about)


class TrustInPayloadIgnored(ServiceProxy):
    """Ignores a trust class a capture's payload carries (the host assigns it anyway)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        payload = arguments.get("payload") if isinstance(arguments, dict) else None
        if isinstance(payload, dict) and "trust" in payload:
            kept = {key: value for key, value in payload.items() if key != "trust"}
            arguments = {**arguments, "payload": kept}
        return super().call(tool, arguments, context)


MUTANTS: list[tuple[type, Caught]] = [
    *((_ignoring(name), _caught(name)) for name in sorted(set().union(*EXTRAS.values()))),
    (TrustInPayloadIgnored, Caught(("HOST-017",))),
]
