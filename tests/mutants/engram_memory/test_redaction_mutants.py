"""Each redaction check fires on a server that breaks its rule (``catalog/redaction.py``), and no
other redaction rule breaks.

A mutant runs under the redaction policy it needs, declared alike to the server and the harness.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.engram_memory.settings import Policy
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy

from ...conformance.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught
from .base import ServiceProxy
from .catalog.redaction import MUTANTS


@pytest.mark.parametrize(
    ("mutant", "hidden", "caught"), MUTANTS, ids=[m.__name__ for m, _, _ in MUTANTS]
)
def test_redaction_mutant_is_caught(
    tmp_path: Path,
    mutant: type[ServiceProxy],
    hidden: frozenset[str],
    caught: Caught,
    selecting: Selecting,
) -> None:
    result = run_against(
        tmp_path,
        service_mutant=mutant,
        server_policy=HostPolicy(redacted_fields=hidden),
        target_policy=Policy(redacted_fields=hidden),
        only=selecting(caught, ("REDACT", "ENV-013")),
    )
    assert_caught(result, caught)


def test_reference_passes_every_redaction_rule(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=("REDACT",))
    assert {v.verdict for v in result.verdicts.values()} == {"pass"}, result.verdicts


def test_reference_under_a_redacting_policy(tmp_path: Path) -> None:
    """Hiding fields (record_id among them, which must stay) leaves every rule decided.

    Only SEARCH-007 has nothing to judge: no record comes back whole.
    """
    hidden = frozenset({"citations", "trust", "record_id"})
    result = run_against(
        tmp_path,
        server_policy=HostPolicy(redacted_fields=hidden),
        target_policy=Policy(redacted_fields=hidden),
        only=("SEARCH", "PAGE", "REDACT"),
    )
    verdicts = {rule: verdict.verdict for rule, verdict in result.verdicts.items()}
    assert verdicts.pop("SEARCH-007") == "not_applicable"
    assert set(verdicts.values()) == {"pass"}, result.verdicts
