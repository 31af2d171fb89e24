"""Reading JSON-RPC messages leniently, so the contract rather than the SDK answers bad arguments.

The SDK refuses, before any handler runs, JSON text whose strings are not Unicode scalar values
(an escaped lone surrogate), JSON nested deeper than about 200 levels, and ``tools/call``
arguments that are not an object. The contract answers those arguments ``INVALID_SCHEMA``
(rule SCHEMA-032 and the closed schemas), and only after the protocol checks. So both
transports parse with the standard library, set a ``tools/call``'s arguments aside exactly as
sent, and hand the SDK the rest of the message with ``{}`` for arguments; the handler takes the
arguments from ``SentArguments``. Invalid UTF-8 bytes are decoded to lone surrogates, so they
too reach the validator, which refuses them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

#: The ASGI scope key under which the HTTP transport passes a call's arguments to the handler.
SCOPE_KEY = "engram.sent_arguments"
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class SentArguments:
    """A ``tools/call``'s arguments as the client sent them (any JSON value)."""

    value: Any


class NotJson(ValueError):
    """The bytes are not JSON text (or nest deeper than the interpreter can follow)."""


def parse(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError) as error:
        raise NotJson(type(error).__name__) from error


def set_aside(message: Any) -> tuple[Any, SentArguments | None]:
    """The message the SDK may see, and the arguments of a ``tools/call`` request.

    In the message returned, a ``tools/call``'s arguments are ``{}`` and every other string is
    made of Unicode scalar values (a lone surrogate becomes U+FFFD), since the SDK echoes some of
    them, such as the request id, and cannot encode a lone surrogate.
    """
    sent = None
    if isinstance(message, dict) and message.get("method") == "tools/call":
        params = message.get("params")
        if isinstance(params, dict) and "arguments" in params:
            sent = SentArguments(params["arguments"])
            message = {**message, "params": {**params, "arguments": {}}}
    return _scalar_strings(message), sent


def encode(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _scalar_strings(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_scalar_strings(key): _scalar_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_scalar_strings(item) for item in value]
    return value
