"""Each TOPIC check of the mem contract fires on a server that breaks its rule
(``catalog/topics.py``), and only the rules it breaks; the mem reference passes them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem.server import Handlers

from ...conformance.mem.inprocess import run_against
from ..caught import Caught, Selecting, assert_caught, mem_rules
from .catalog.topics import MUTANTS

TOPIC = ("TOPIC",)


@pytest.mark.parametrize(("mutant", "caught"), MUTANTS, ids=[m.__name__ for m, _ in MUTANTS])
def test_mem_topics_mutant_is_caught(
    tmp_path: Path, mutant: type[Handlers], caught: Caught, selecting: Selecting
) -> None:
    only = selecting(caught, TOPIC)
    assert_caught(run_against(tmp_path, wiring_mutant=mutant, only=only), caught)


def test_every_topic_rule_has_a_mutant() -> None:
    assert {rule for _, caught in MUTANTS for rule in caught.broken} == set(mem_rules("TOPIC"))


def test_the_mem_reference_passes_the_topic_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=TOPIC)
    topic = mem_rules("TOPIC")
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == dict.fromkeys(topic, "pass")
