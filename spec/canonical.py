"""Canonical JSON (RFC 8785, JCS) and the contract's ``sha256:`` digests."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

DIGEST_PREFIX = "sha256:"


def canonical_json(value: Any) -> bytes:
    """The UTF-8 bytes of the RFC 8785 canonical form of ``value``."""
    return rfc8785.dumps(value)


def digest(value: Any, domain: bytes = b"") -> str:
    """``sha256:`` + lowercase hex of SHA-256 over ``domain`` then the JCS bytes of ``value``.

    The contract's digests (DESIGN.md, Decisions / Digests) use no domain. The upstream engine
    prefixes a NUL-terminated domain such as ``b"graphify-memory/payload/v2\\0"``; passing it
    reproduces upstream digests, which is how the canonicalization is proven against them.
    """
    return DIGEST_PREFIX + hashlib.sha256(domain + canonical_json(value)).hexdigest()


def operation_digest(tool: str, arguments: dict[str, Any]) -> str:
    """The digest a confirmation binds: JCS of ``{"tool": name, "arguments": arguments}``."""
    return digest({"tool": tool, "arguments": arguments})
