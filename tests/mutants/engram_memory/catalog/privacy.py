"""Servers that break a privacy rule (PRIV): texts kept in clear in the state folder, a data key
left to be destroyed later, and credential detectors that miss what they should find.

The detectors are planting functions: they patch the reference's own detector while their test
runs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks.context import CAPTURE, WITHDRAW
from engram_conformance.reference_impl.engram_memory import credentials
from engram_conformance.reference_impl.engram_memory.tools import admission
from engram_conformance.strategies.engram_memory.credentials import CATALOGUE, DEFAULT

from ...caught import Caught
from ..answers import edited
from ..base import InStateFolder, Planting, ServiceProxy


def _texts(arguments: Any) -> list[str]:
    """The component texts and attestation of capture arguments."""
    texts = [component["text"] for component in arguments["payload"]["components"]]
    return [*texts, arguments["evidence"].get("attestation", "")]


class PlaintextOnDisk(InStateFolder):
    """A debug journal in the state folder keeps every captured text in clear (PRIV-001), and
    keeps it after the candidate ends (PRIV-002)."""

    def __init__(self, inner: Any, state_dir: Path) -> None:
        super().__init__(inner, state_dir)
        self.journal = state_dir / "captures.log"

    def call(self, tool: str, arguments: Any, context: Any) -> dict:
        if tool == CAPTURE:
            with self.journal.open("a", encoding="utf-8") as journal:
                journal.write(json.dumps(_texts(arguments)) + "\n")
        return self.inner.call(tool, arguments, context)


class TrashKeepsWithdrawn(InStateFolder):
    """Withdrawn candidates' texts are moved to a trash file in clear (PRIV-002)."""

    def __init__(self, inner: Any, state_dir: Path) -> None:
        super().__init__(inner, state_dir)
        self.trash = state_dir / "trash.jsonl"
        self.captured: dict[str, list[str]] = {}

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool == CAPTURE and envelope["ok"]:
            self.captured[envelope["output"]["value"]["candidate_id"]] = _texts(arguments)
        if tool == WITHDRAW and envelope["ok"]:
            with self.trash.open("a", encoding="utf-8") as trash:
                trash.write(json.dumps(self.captured[arguments["candidate_id"]]) + "\n")
        return envelope


class KeyDestructionPending(ServiceProxy):
    """withdraw leaves the data key to be destroyed later (PRIV-003)."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict) -> dict:
        if tool != WITHDRAW:
            return envelope
        return edited(envelope, lambda value: value.update(key_destruction="pending"))


#: The pre-fix armour pattern (issue 12, finding 5): "PRIVATE KEY-----" right after the words,
#: so a PGP block ("PRIVATE KEY BLOCK-----") is not seen.
_PEM_ONLY = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY-----")


def no_credential_detector(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The admission policy finds no credential in anything: secrets become memory (PRIV-006)."""
    monkeypatch.setattr(admission, "carries_credential", lambda *texts: False)
    return {}


def no_folding(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The detector does not fold texts first: zero-width and fullwidth forms pass."""
    monkeypatch.setattr(credentials, "fold", lambda text: text)
    return {}


def components_alone(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The detector reads each component alone: a pair split across two components passes."""
    monkeypatch.setattr(credentials, "_across", lambda first, second: False)
    return {}


def no_pgp_blocks(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The detector looks for PEM armour only: a PGP private key block passes."""
    patterns = [
        _PEM_ONLY if pattern is credentials.PRIVATE_KEY_BLOCK else pattern
        for pattern in credentials.PATTERNS
    ]
    monkeypatch.setattr(credentials, "PATTERNS", patterns)
    return {}


def blind_to(kind: str) -> Planting:
    """A detector blind to one kind of the catalogue: a capture whose texts, folded and run
    together, hold the catalogue's example of ``kind`` reads clean (its evasions fold back to
    it); every other capture is judged as the reference judges it."""
    example = next(c.parts[0] for c in CATALOGUE if c.kind == kind and c.evasion == "none")

    def planting(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
        reference = admission.carries_credential

        def detector(texts: Any, fields: Any = ()) -> bool:
            texts = list(texts)
            if example in "".join(credentials.fold(text) for text in texts):
                return False
            return reference(texts, fields)

        monkeypatch.setattr(admission, "carries_credential", detector)
        return {}

    planting.__doc__ = f"The detector misses every {kind} (the catalogue's, evasions too)."
    return planting


#: (mutant, the rules it breaks, each with the check that reports it)
MUTANTS: list[tuple[type, Caught]] = [
    (
        PlaintextOnDisk,
        Caught.reported(
            {
                "PRIV-001": "pending_candidate_is_not_stored_in_clear",
                "PRIV-002": "ended_candidates_leave_no_plaintext",
                "PRIV-007": "forget_erases_the_text",  # the journal keeps a forgotten text too
            }
        ),
    ),
    (TrashKeepsWithdrawn, Caught.reported({"PRIV-002": "ended_candidates_leave_no_plaintext"})),
    (KeyDestructionPending, Caught.reported({"PRIV-003": "withdraw_destroys_the_data_key"})),
]
#: What a server without a credential detector breaks.
UNDETECTED = Caught(("PRIV-006",))
#: Test id -> a detector that misses one class of the catalogue of credentials.
DETECTORS = {
    "no folding": no_folding,
    "components alone": components_alone,
    "no PGP blocks": no_pgp_blocks,
}
#: What each of them breaks: only PRIV-006, reported by the catalogue check (every other PRIV
#: rule's checks use a plain credential).
MISSED = Caught.reported({"PRIV-006": "credentials_are_never_stored"})
#: Test id (a kind of the catalogue) -> a detector that misses that kind alone.
BLIND = {kind: blind_to(kind) for kind in dict.fromkeys(c.kind for c in CATALOGUE)}


def blind_caught(kind: str) -> Caught:
    """What a detector blind to ``kind`` breaks: PRIV-006, each failure about that kind. PRIV-002's
    check, which ends a candidate carrying the default credential, is left undecided when that
    is the kind missed."""
    undecided = ("PRIV-002",) if kind == DEFAULT.kind else ()
    return Caught(("PRIV-006",), undecided, about={"PRIV-006": f"a {kind}"})
