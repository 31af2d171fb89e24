"""The signed-meta host binding: an Ed25519 key pair per run, one compact JWS per call.

The public key is written to a PEM file for the server's ``{host_public_key_file}``; the token
travels in ``params._meta`` under the key, and with the header, that the spec's binding schema
names (``x-metaKey``, ``x-header``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from engram_conformance.spec.engram_memory import Spec, load


class ContextSigner:
    """Signs invocation-context claims with a private key that never leaves this process."""

    def __init__(self, spec: Spec | None = None) -> None:
        spec = spec or load()
        schema = spec.schema(spec.contract["binding_schema"])
        self.meta_key: str = schema["x-metaKey"]
        self._header: dict[str, str] = dict(schema["x-header"])
        self._key = Ed25519PrivateKey.generate()

    def public_key(self) -> Ed25519PublicKey:
        return self._key.public_key()

    def public_pem(self) -> bytes:
        return self.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)

    def write_public_key(self, path: Path) -> Path:
        path.write_bytes(self.public_pem())
        return path

    def sign(self, claims: Mapping[str, Any], *, headers: Mapping[str, Any] | None = None) -> str:
        """A compact JWS of ``claims``; ``headers`` adds to (or overrides) the profile's header."""
        return self.sign_payload(json.dumps(dict(claims)).encode(), headers=headers)

    def sign_payload(self, payload: bytes, *, headers: Mapping[str, Any] | None = None) -> str:
        """A compact JWS of any payload, a claims object or not (forged contexts are made so)."""
        header = {**self._header, **(headers or {})}
        algorithm = header.pop("alg")
        return jwt.api_jws.encode(payload, self._key, algorithm=algorithm, headers=header)

    def meta(self, claims: Mapping[str, Any]) -> dict[str, str]:
        """The ``_meta`` of one request carrying ``claims``."""
        return {self.meta_key: self.sign(claims)}
