"""The reference server over stdio with one framing fault planted: HOST-025's mutants, which
only a server reading text can have (in process there is none), so a descriptor starts them.

``python framing_server.py MUTANT serve --state-dir ... --host-public-key ...``
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from engram_conformance.reference_impl import cli, wire


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


MUTANTS: dict[str, Callable[[], Any]] = {
    "drops-bad-ids": drops_bad_ids,
    "last-key-wins": last_key_wins,
    "dies-on-deep-nesting": dies_on_deep_nesting,
}

if __name__ == "__main__":
    MUTANTS[sys.argv[1]]()
    cli.main(sys.argv[2:])
