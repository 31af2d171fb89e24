"""HOST-025's check fires on a server that drops requests with a bad id, takes a repeated key
silently or dies on deep nesting (``catalog/framing.py``), and SCHEMA-032, which also goes over
the raw channel, passes beside it. Over stdio: a server in process reads no text."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..caught import assert_caught
from ..described import planted, run_described
from .catalog.framing import STDIO

#: The rules run: HOST-025, and SCHEMA-032 beside it (silence is bounded by a 3 s call timeout).
ONLY = "HOST-025,SCHEMA-032"


@pytest.mark.parametrize("mutant", sorted(STDIO))
def test_framing_mutant_is_caught(tmp_path: Path, mutant: str) -> None:
    server = planted("engram_memory.framing", mutant)
    found = run_described(tmp_path, server, ONLY, mutant=mutant, call_timeout_s=3)
    assert_caught(found, STDIO[mutant][1])
