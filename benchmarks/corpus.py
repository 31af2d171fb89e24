"""A deterministic synthetic corpus for the benchmarks: Zipf-distributed words, cited captures."""

from __future__ import annotations

import itertools
import random
from typing import Any

DIGEST = "sha256:" + "5e" * 32
VOCABULARY_SIZE = 20_000


def vocabulary(seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < VOCABULARY_SIZE:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 10))))
    return sorted(words)


class Corpus:
    """Texts whose words follow a Zipf law over the vocabulary, and queries over the same words."""

    def __init__(self, seed: int = 11) -> None:
        self.words = vocabulary()
        self.rng = random.Random(seed)
        weights = [1 / (rank + 1) for rank in range(len(self.words))]
        self.cumulative = list(itertools.accumulate(weights))

    def text(self, longest: int = 60) -> str:
        length = self.rng.randint(5, longest)
        return " ".join(self.rng.choices(self.words, cum_weights=self.cumulative, k=length))

    def query(self) -> str:
        """One to three words drawn uniformly from the vocabulary (most are rare terms)."""
        return " ".join(self.rng.sample(self.words, self.rng.randint(1, 3)))

    def capture(self, number: int, purpose: str) -> dict[str, Any]:
        return {
            "idempotency_key": f"bench-capture-{number:08d}",
            "payload": {
                "schema_version": 2,
                "purpose_ref": purpose,
                "valid_time": {"t": 1_700_000_000_000},
                "components": [
                    {"component_id": "component:decision", "kind": "decision",
                     "text": self.text(), "citation_ids": ["citation:1"]},
                    {"component_id": "component:context", "kind": "context",
                     "text": self.text(30), "citation_ids": ["citation:1"]},
                ],
                "primary_component_id": "component:decision",
                "primary_event": {"at": 1_700_000_000_000, "type_ref": "event:decided",
                                  "citation_id": "citation:1"},
                "citations": [
                    {"citation_id": "citation:1", "source_ref": f"source:doc-{number % 97}",
                     "locator": {"scheme": "doc", "value": f"section-{number}"},
                     "content_digest": DIGEST}
                ],
            },
            "evidence": {"evidence_ref": "evidence:bench", "evidence_digest": DIGEST,
                         "citation_ids": ["citation:1"]},
        }  # fmt: skip
