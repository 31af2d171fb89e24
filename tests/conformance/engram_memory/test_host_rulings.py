"""What the host rules' levels mean for a run: HOST-020 (the claimed tools are listed) is a
profile rule, yet a claimed tool that is not listed never reads green; HOST-013's name test;
the trust class check that decides LIFE-007 for ``trust``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks.binding import maintenance_operation
from engram_conformance.conformance.runner import RunOptions
from engram_conformance.reference_impl.engram_memory.binding import UnknownTool
from engram_conformance.reference_impl.engram_memory.context import InvocationContext
from engram_conformance.spec.engram_memory import load

from ...mutants.engram_memory.base import BindingMutant
from ...mutants.engram_memory.catalog.host import MadeUpTrustClass, ToolsListChecksTheToolClaim
from ..inprocess import in_process_document, run_against

SPEC = load()


class WithoutTool(BindingMutant):
    """A server without the tool ``missing``: tools/list leaves it out, a call of it answers
    -32602 (as for any tool that does not exist)."""

    missing: str

    def listed_tools(self, meta: Any) -> list[str]:
        return [name for name in super().listed_tools(meta) if name != self.missing]

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        if tool == self.missing:
            raise UnknownTool("no such tool")
        return super().admit_call(tool, arguments, meta)


class ListsNothingWithoutAContext(BindingMutant):
    """tools/list without a context lists none of the six."""

    def listed_tools(self, meta: Any) -> list[str]:
        return [] if self.context(meta) is None else super().listed_tools(meta)


def _needing_only(tool: str) -> str:
    """A testable must rule that concerns ``tool`` alone."""
    return next(
        rule.id
        for rule in SPEC.rules.values()
        if rule.level == "must" and rule.testable and set(rule.tools) == {tool}
    )


def test_host_020_is_a_profile_rule() -> None:
    assert SPEC.rules["HOST-020"].level == "profile"


@pytest.mark.parametrize("tool", list(SPEC.tools))
def test_a_claimed_tool_that_is_not_listed_never_reads_green(tmp_path: Path, tool: str) -> None:
    """HOST-020 warns, and a must rule needing the tool is error, which fails the gate."""
    rule = _needing_only(tool)
    mutant = type(f"Without_{tool}", (WithoutTool,), {"missing": tool})
    options = RunOptions(only=(rule, "HOST-020"), seed=1)
    result = run_against(tmp_path, binding_mutant=mutant, only=options.only)
    assert result.verdicts["HOST-020"].verdict == "warn"
    verdict = result.verdicts[rule]
    assert verdict.verdict == "error", verdict
    assert f"tool {tool} absent from tools/list" in (verdict.reason or "")
    document = in_process_document(result, options)
    assert next(record for record in document.rules if record.id == rule).fails_gate
    assert document.conformance.conformance_class == "partial"
    assert document.exit_code == 1


def test_a_server_listing_none_of_the_six_exits_1(tmp_path: Path) -> None:
    """Class none: exit code 1, though HOST-020, the one rule decided, only warns."""
    options = RunOptions(seed=1)
    result = run_against(tmp_path, binding_mutant=ListsNothingWithoutAContext)
    document = in_process_document(result, options)
    verdicts = {rule.id: rule.verdict for rule in document.rules}
    assert verdicts.pop("HOST-020") == "warn"
    assert set(verdicts.values()) == {"not_applicable"}
    assert document.conformance.conformance_class == "none"
    assert document.exit_code == 1


@pytest.mark.parametrize(
    ("name", "operation"),
    [
        ("engram_memory_rewind", "rewind"),
        ("engram_memory_admin", "administration"),
        ("memory_backup", "backup"),
        ("back_up_memory", "backup"),
        ("restoreSnapshot", "restore"),
        ("rotate_keys", "rotation"),
        ("revoke_principal", "revocation"),
        ("run_migrations", "migration"),
        ("invalidate_projection", "projection invalidation"),
        ("supersede_record", "supersession"),
        ("dispute_record", "dispute"),
        ("roll_back", "rewind"),
        ("expire_records", "expiry"),
        ("engram_memory_history", "history"),
        ("list_candidates", "candidate inspection"),
        ("bootstrap", "bootstrap"),
    ],
)
def test_a_tool_named_for_maintenance_is_told(name: str, operation: str) -> None:
    assert maintenance_operation(name) == operation


@pytest.mark.parametrize("name", [*SPEC.tools, "engram_memory_export", "feedback_update", "echo"])
def test_other_tool_names_are_no_maintenance(name: str) -> None:
    assert maintenance_operation(name) is None


def test_a_made_up_trust_class_is_caught_by_the_trust_check(tmp_path: Path) -> None:
    """The check that decides LIFE-007 for trust (next to HOST-017) reports it; HOST-017, the
    seed's clause (a capture cannot carry trust), still passes."""
    result = run_against(tmp_path, service_mutant=MadeUpTrustClass, only=("HOST-017", "LIFE-007"))
    assert result.verdicts["LIFE-007"].verdict == "warn"
    assert result.verdicts["HOST-017"].verdict == "pass"
    checks = {failure.check for failure in result.ledger.evidence["LIFE-007"].failures}
    assert "records_carry_a_trust_class" in checks


def test_a_tools_claim_left_out_is_told_absent(tmp_path: Path) -> None:
    """HOST-022's failures say which tools claim was sent: a list, or "absent" when the context
    carries none (never the harness's sentinel object)."""
    mutant = ToolsListChecksTheToolClaim
    result = run_against(tmp_path, binding_mutant=mutant, only=("HOST-022",))
    said = [f"{f.expected} {f.observed}" for f in result.ledger.evidence["HOST-022"].failures]
    assert any("(tools claim absent)" in text for text in said), said
    assert not [text for text in said if "object at 0x" in text], said
