"""Search page cursors: bound to the scope, the request and the ordered results they page through.

A cursor is base64url (unpadded) of the JCS object ``{v, offset, request, ordered}``; ``request``
digests the scope, query and parameters, ``ordered`` the full ordered id list. Anything that does
not decode to exactly that shape, or names another request or another ordering, is stale.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from engram_conformance.spec.engram_memory import canonical_json

VERSION = 1


@dataclass(frozen=True)
class PageCursor:
    offset: int
    request: str
    ordered: str

    def encode(self) -> str:
        body = {
            "v": VERSION,
            "offset": self.offset,
            "request": self.request,
            "ordered": self.ordered,
        }
        return base64.urlsafe_b64encode(canonical_json(body)).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> PageCursor | None:
        """The cursor ``text`` encodes, or None when it is not one this server issues."""
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
            body = json.loads(raw)
        except (binascii.Error, ValueError, RecursionError):  # deep nesting: not ours either
            return None
        if not isinstance(body, dict) or set(body) != {"v", "offset", "request", "ordered"}:
            return None
        offset, request, ordered = body["offset"], body["request"], body["ordered"]
        valid = (
            body["v"] == VERSION
            and type(offset) is int
            and offset > 0
            and isinstance(request, str)
            and isinstance(ordered, str)
        )
        cursor = cls(offset, request, ordered) if valid else None
        return cursor if cursor is not None and cursor.encode() == text else None
