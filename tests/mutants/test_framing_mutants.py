"""HOST-025's check fires on a server that drops requests with a bad id, takes a repeated key
silently or dies on deep nesting, and passes the reference; SCHEMA-032, which also goes over
the raw channel, passes beside it. Over stdio: a server in process reads no text."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ..conformance.inprocess import broken_verdict
from .described import run_described
from .framing_server import MUTANTS

RULE = "HOST-025"
BESIDE = "SCHEMA-032"
SERVER = Path(__file__).with_name("framing_server.py")
#: What the failures of each mutant are about.
BROKEN = {
    "drops-bad-ids": "whose id is",
    "last-key-wins": "a repeated argument",
    "dies-on-deep-nesting": "nested 10,000 deep",
}


def verdicts(tmp_path: Path, mutant: str) -> dict[str, Any]:
    """The verdicts of HOST-025 and SCHEMA-032 against the reference with ``mutant`` planted
    (silence is bounded by a call timeout of 3 s)."""
    server = [sys.executable, str(SERVER), mutant, "serve"]
    return run_described(tmp_path, server, f"{RULE},{BESIDE}", mutant=mutant, call_timeout_s=3)


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_framing_mutant_is_caught(tmp_path: Path, mutant: str) -> None:
    found = verdicts(tmp_path, mutant)
    assert found[RULE].verdict == broken_verdict(RULE), found[RULE]
    assert found[RULE].failures
    assert all(BROKEN[mutant] in failure.expected for failure in found[RULE].failures)
    assert found[BESIDE].verdict == "pass"
