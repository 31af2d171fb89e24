"""Servers with one framing fault (HOST-025), which only a server reading text can have (in
process there is none): each is planted over stdio by ``stdio_server.py``."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

from engram_conformance.reference_impl import wire

from ...caught import Caught


def drops_bad_ids() -> None:
    """A request whose id is no string or integer is read as a notification and dropped, as
    the SDK does (the reference's behaviour before issue 12)."""
    wire._is_request = lambda message: False


def last_key_wins() -> None:
    """An object with a repeated key keeps the last value, silently."""
    wire._object = dict


def dies_on_deep_nesting() -> None:
    """Deep nesting kills the process, as a reader that overflows its stack does."""

    def overflows(text: str) -> str:
        try:
            json.loads(text)
        except RecursionError:
            os._exit(70)
        return text

    wire._shallow = overflows


def _about(case: str) -> Caught:
    """HOST-025 broken, each of its failures in the case named."""
    return Caught(("HOST-025",), about={"HOST-025": case})


#: The mutants over stdio: name -> the function that plants it in the server's process, and
#: what it breaks.
STDIO: dict[str, tuple[Callable[[], None], Caught]] = {
    "drops-bad-ids": (drops_bad_ids, _about("whose id is")),
    "last-key-wins": (last_key_wins, _about("a repeated argument")),
    "dies-on-deep-nesting": (dies_on_deep_nesting, _about("nested 10,000 deep")),
}
