"""Transcripts of failing checks (one JSON object per line, a call and its answer), read back
for replay, and what replaying one call found."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .observation import Observation


@dataclass(frozen=True)
class Replayed:
    recorded: dict[str, Any]
    observed: Observation
    diff: str  # empty when the masked answers are equal


def read_transcript(path: Path) -> list[dict[str, Any]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
