"""The bearer token an HTTP client of the reference must send (``Authorization: Bearer TOKEN``).

The state folder and its files are private to their owner, but a port on 127.0.0.1 is open to
every local user: without a credential any of them could read and delete the owner's memories.
So ``serve --http`` requires a token, kept in a file only the owner can read (``http.token`` in
the state folder unless ``--token-file`` names another), made when missing; the owner's clients
read it from there. Tokens are compared in constant time.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import Response

from .at_rest import create_whole, secret_file

TOKEN_FILE = "http.token"  # noqa: S105 - the name of a file, not a token
#: A token given by file is refused when shorter: it could be guessed.
MIN_TOKEN_CHARS = 16
_REALM = 'Bearer realm="engram-reference"'


class BadToken(ValueError):
    """A token file that holds no usable token."""


@dataclass(frozen=True)
class BearerToken:
    value: bytes

    @classmethod
    def in_file(cls, path: Path) -> BearerToken:
        """The token in ``path``, made there (mode 0600) when the file does not exist. A file
        others can read raises ``at_rest.UnsafeState``; one holding no usable token (at least
        ``MIN_TOKEN_CHARS`` visible ASCII characters), ``BadToken``; one another user owns,
        ``at_rest.UnsafeState``."""
        if not path.exists():
            create_whole(path, secrets.token_urlsafe(32).encode("ascii") + b"\n")
        secret_file(path, "token file")
        value = path.read_bytes().strip()
        if len(value) < MIN_TOKEN_CHARS or not all(0x21 <= byte <= 0x7E for byte in value):
            raise BadToken(
                f"{path} holds no token: at least {MIN_TOKEN_CHARS} visible ASCII characters"
            )
        return cls(value)

    def refusal(self, headers: Headers) -> Response | None:
        """401 with a ``WWW-Authenticate`` challenge (RFC 6750) unless ``headers`` carry the
        token."""
        scheme, _, credentials = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return Response("Unauthorized", 401, headers={"www-authenticate": _REALM})
        if not hmac.compare_digest(credentials.strip().encode("latin-1"), self.value):
            challenge = f'{_REALM}, error="invalid_token"'
            return Response("Unauthorized", 401, headers={"www-authenticate": challenge})
        return None
