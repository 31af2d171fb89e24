"""The two MCP protocol eras a run can speak, and how the harness frames a request in each.

``2025-11-25`` is the handshake era: ``initialize`` opens a session, whose version every later
request relies on (over HTTP, an ``Mcp-Session-Id``). ``2026-07-28`` removed the handshake:
``server/discover`` tells what a server speaks, and every request carries its own envelope in
``params._meta`` (protocol version, client info, client capabilities) and, over HTTP, the
``Mcp-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers, with no session.

The typed client negotiates through the SDK (``Client(mode=...)``); the raw channel, which
writes its bytes itself, frames them here (``envelope``, ``http_headers``). A run asks for an
era (``REQUESTS``): ``auto`` is the newest the server speaks, ``both`` each in turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The SDK's names for these (mcp_types: LATEST_MODERN_VERSION, the *_META_KEY constants) are
# written out here, as the protocol's own strings, so that a command that only parses options
# (``--help``, ``--era``'s choices) does not import the SDK; tests/conformance/test_eras.py keeps
# them equal to the SDK's.
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
#: The eras, oldest first.
ERAS = (HANDSHAKE, MODERN)
AUTO = "auto"
BOTH = "both"
#: What a descriptor's ``[server] era`` and ``--era`` accept.
REQUESTS = (AUTO, *ERAS, BOTH)
#: The ``_meta`` keys of the new era's envelope.
ENVELOPE_KEYS = (
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
)
#: Who the raw channel says it is, in ``initialize`` and in the envelope.
RAW_CLIENT_INFO = {"name": "engram-conformance-raw", "version": "1"}
#: The requests whose ``Mcp-Name`` header names their target, and the param that holds it.
NAMED_BY = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}


def era_of(protocol_version: str) -> str:
    """The era a negotiated protocol version belongs to."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return MODERN if protocol_version in MODERN_PROTOCOL_VERSIONS else HANDSHAKE


def is_modern(protocol_version: str | None) -> bool:
    return protocol_version is not None and era_of(protocol_version) == MODERN


@dataclass(frozen=True)
class Negotiated:
    """The protocol version a server agreed to on the run's first connection, whose era every
    later client and raw channel of the run speaks."""

    protocol_version: str

    @property
    def era(self) -> str:
        return era_of(self.protocol_version)


def client_mode(wanted: str) -> str:
    """The SDK client's ``mode`` for a connection that wants ``wanted`` (an era, or ``auto``).
    The new era is asked for with ``auto`` too, never adopted unasked: a client is open only
    once the server answered its opening request (``server/discover``), as ``initialize``
    shows in the handshake era, and a server that does not speak the era is told as such."""
    return "legacy" if wanted == HANDSHAKE else "auto"


def envelope(protocol_version: str | None) -> dict[str, Any]:
    """The ``_meta`` keys every request of the new era carries (none in the handshake era)."""
    if not is_modern(protocol_version):
        return {}
    return dict(zip(ENVELOPE_KEYS, (protocol_version, RAW_CLIENT_INFO, {}), strict=True))


def http_headers(protocol_version: str | None, method: str, name: str | None) -> dict[str, str]:
    """The HTTP headers of one request in ``protocol_version``'s era: the version alone in the
    handshake era (once negotiated), the version, method and target name in the new one."""
    if protocol_version is None:
        return {}
    headers = {"mcp-protocol-version": protocol_version}
    if is_modern(protocol_version):
        headers["mcp-method"] = method
        if name is not None:
            from mcp.shared.inbound import encode_header_value

            headers["mcp-name"] = encode_header_value(name)
    return headers
