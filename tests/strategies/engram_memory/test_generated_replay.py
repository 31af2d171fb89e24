"""A failure of the generated arguments check carries its example (its Hypothesis choices, its
tool and kind of object), and is met again by sending that one example: in the run's re-check,
and in the stand-alone reproduction file written for it.

The planted bug is the mutant ``OpenSchema`` (SCHEMA-001), found once for the module (a whole
search, with its re-check, by which the bug is gone); the check runs alone, as in
``test_generated_check.py``.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from engram_conformance.conformance import runner
from engram_conformance.conformance.engram_memory.checks import generated, registry
from engram_conformance.conformance.engram_memory.checks.generated import (
    RULES,
    generated_arguments_are_answered_as_labelled,
)
from engram_conformance.conformance.ledger import Failure
from engram_conformance.conformance.reproduction import ReproductionUnusable, write_reproductions
from engram_conformance.conformance.runner import RunResult
from hypothesis.core import encode_failure

from ...conformance.inprocess import run_against
from ...conformance.reproducing import fails_while_broken, on_the_reference
from ...mutants.engram_memory.catalog.schema import OpenSchema
from .test_generated_check import assert_found

CHECK = generated_arguments_are_answered_as_labelled.__name__
RULE = "SCHEMA-001"
FIXTURES = Path(__file__).parents[2] / "conformance" / "fixtures"
SERVER = FIXTURES / "open_schema_server.py"
COMMAND = shlex.join([sys.executable, str(SERVER), "{state_dir}", "{host_public_key_file}"])
#: a whole search of the reference sends about 150 calls; one example, its control and the
#: targets it may need, a handful
A_HANDFUL = 6


class OpenSchemaUntilRechecked(OpenSchema):
    """``OpenSchema``'s bug, gone once the run's re-checks begin (``fixed``): a fault the check
    alone does not meet again."""

    fixed = False

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if type(self).fixed:
            return self.inner.call(tool, arguments, context)
        return super().call(tool, arguments, context)


@pytest.fixture(scope="module")
def generated_only() -> Iterator[None]:
    registry.all_checks()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry, "REGISTRY", {CHECK: registry.REGISTRY[CHECK]})
        # bounded by counts, not by the clock (``test_generated_check.generated_only``)
        patch.setattr(generated, "SECONDS", 600.0)
        yield


@pytest.fixture(scope="module")
def found(generated_only: None, tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    """The run against the planted bug, which is gone once the run's re-checks begin: its
    re-check sends the failing example alone and reads it flaky. (That the example fails again
    while the bug stands is shown by its reproduction file, which sends it the same way.)"""
    searched = runner.recheck

    async def fixed_first(*arguments: Any, **options: Any) -> Any:
        OpenSchemaUntilRechecked.fixed = True
        return await searched(*arguments, **options)

    state = tmp_path_factory.mktemp("state")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "recheck", fixed_first)
        patch.setattr(OpenSchemaUntilRechecked, "fixed", False)
        return run_against(
            state, service_mutant=OpenSchemaUntilRechecked, only=RULES, profile="full"
        )


def the_failure(result: RunResult) -> Failure:
    (failure,) = [f for f in result.ledger.evidence[RULE].failures if f.check == CHECK]
    return failure


def tool_calls(calls: list[dict[str, Any]]) -> list[str]:
    return [call["tool"] for call in calls if call.get("tool")]


def test_the_planted_bug_is_found_shrunk_and_kept(found: RunResult) -> None:
    """As ``test_generated_check.test_a_planted_bug_is_found`` asks of its planted bug."""
    assert_found(found, OpenSchema, RULE)


def test_the_failure_carries_its_example_and_its_part(found: RunResult) -> None:
    failure = the_failure(found)
    example = failure.reproduction
    assert example is not None, "the failure carries how to meet it again"
    assert (example.check, example.hypothesis) == (CHECK, hypothesis.__version__)
    (call,) = failure.calls
    assert example.part == f"{call['tool']}/broken", "the tool and kind of its object"
    assert example.choices


def test_the_recheck_sends_that_example_alone_and_reads_flaky_once_it_passes(
    found: RunResult,
) -> None:
    assert found.rechecked.outcomes == {RULE: "flaky"}
    transcript = found.rechecked.passed_alone[RULE]
    calls = tool_calls(found.transcripts[transcript])
    tool = the_failure(found).calls[0]["tool"]
    assert tool in calls and len(calls) <= A_HANDFUL, calls


def test_the_reproduction_file_fails_while_the_bug_is_there(
    found: RunResult, tmp_path: Path
) -> None:
    written = write_reproductions(found, tmp_path, {"stdio": COMMAND}, "engram-memory")
    test_file = tmp_path / written[(RULE, CHECK)]
    example = the_failure(found).reproduction
    assert example is not None
    assert f"part={example.part!r}," in test_file.read_text(encoding="utf-8")
    fails_while_broken(test_file, RULE)


def test_the_reproduction_passes_against_a_server_without_the_bug(found: RunResult) -> None:
    example = the_failure(found).reproduction
    assert example is not None
    on_the_reference(example, RULE)


@pytest.mark.parametrize(
    "unreplayable",
    [
        {"part": None},
        {"part": "engram_memory_search/lost"},
        # choices the strategy cannot make an example of (no choice at all)
        {"choices": encode_failure([]).decode("ascii")},
    ],
    ids=["no-part", "unknown-part", "no-choices"],
)
def test_an_example_that_cannot_be_made_again_says_so(
    found: RunResult, unreplayable: dict[str, Any]
) -> None:
    """Not a pass, not a crash: the rule is left undecided, saying why."""
    example = the_failure(found).reproduction
    assert example is not None
    with pytest.raises(ReproductionUnusable, match="could not be replayed"):
        on_the_reference(replace(example, **unreplayable), RULE)
