"""Search page cursors: what the reference issues, and that nothing else decodes (PAGE-007)."""

from __future__ import annotations

import base64
import json

import pytest
from engram_conformance.reference_impl.engram_memory.paging import VERSION, PageCursor
from engram_conformance.spec.engram_memory import canonical_json

REQUEST = "sha256:" + "a" * 64
ORDERED = "sha256:" + "b" * 64
CURSOR = PageCursor(10, REQUEST, ORDERED)


def _encode(body: object, *, raw: bytes | None = None) -> str:
    data = raw if raw is not None else canonical_json(body)
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _body(**changes: object) -> dict[str, object]:
    return {"v": VERSION, "offset": 10, "request": REQUEST, "ordered": ORDERED, **changes}


def test_round_trip() -> None:
    text = CURSOR.encode()
    assert PageCursor.decode(text) == CURSOR


def test_encoding_is_unpadded_base64url_of_jcs() -> None:
    text = CURSOR.encode()
    assert "=" not in text
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert text == _encode(_body())


@pytest.mark.parametrize("offset", [1, 49, 2000, 2**53 - 1])
def test_round_trip_of_offsets(offset: int) -> None:
    cursor = PageCursor(offset, REQUEST, ORDERED)
    assert PageCursor.decode(cursor.encode()) == cursor


def _tampered() -> str:
    text = CURSOR.encode()
    return text[:8] + ("A" if text[8] != "A" else "B") + text[9:]


REJECTED = {
    "garbage": "garbage",
    "one character": "x",
    "tampered": _tampered(),
    "padded": CURSOR.encode() + "=" * (-len(CURSOR.encode()) % 4 or 4),
    "truncated": CURSOR.encode()[:-1],
    "trailing space": CURSOR.encode() + " ",
    "non-ascii": CURSOR.encode() + "é",
    "not json": _encode(None, raw=b"not json at all"),
    "not utf-8": _encode(None, raw=b'{"v":1,"offset":\xff}'),
    "deeply nested": _encode(None, raw=b"[" * 100_000),
    "json array": _encode([1, 2]),
    "json string": _encode("cursor"),
    "missing key": _encode({k: v for k, v in _body().items() if k != "ordered"}),
    "extra key": _encode(_body(scope="other")),
    "version 2": _encode(_body(v=2)),
    "version true": _encode(
        None, raw=json.dumps(_body(v=True), separators=(",", ":"), sort_keys=True).encode()
    ),
    "offset zero": _encode(_body(offset=0)),
    "offset negative": _encode(_body(offset=-1)),
    "offset fractional": _encode(_body(offset=1.5)),
    "offset string": _encode(_body(offset="10")),
    "offset boolean": _encode(_body(offset=True)),
    "request not a string": _encode(_body(request=1)),
    "ordered null": _encode(_body(ordered=None)),
    "not canonical: spaces": _encode(None, raw=json.dumps(_body(), sort_keys=True).encode()),
    "not canonical: key order": _encode(
        None, raw=json.dumps(_body(), separators=(",", ":")).encode()
    ),
}


@pytest.mark.parametrize("text", REJECTED.values(), ids=REJECTED.keys())
def test_anything_not_issued_does_not_decode(text: str) -> None:
    assert PageCursor.decode(text) is None


def test_the_canonical_form_is_what_decodes() -> None:
    """The negative cases above differ from an issued cursor only in the way they name."""
    assert PageCursor.decode(_encode(_body())) == CURSOR
