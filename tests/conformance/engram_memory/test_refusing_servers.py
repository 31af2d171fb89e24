"""A server that refuses every call passes no check whose verdict rests on a refusal.

A refusal proves something only when the same call put right, in the same scope, is accepted:
every such check sends that positive control, and a control refused stops the check, ``error``
with the reason "the server accepts nothing: ...", which fails the gate. The fixture server
(``fixtures/refusing_server.py``) refuses every call of the six tools, with INVALID_SCHEMA or
with -32603; the in-process cases refuse every call of one tool, so that the controls made after
a live target (a capture, an admission) are reached too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.engram_memory.checks.context import ACCEPTS_NOTHING
from engram_conformance.reference_impl.engram_memory.binding import ContextUnavailable
from engram_conformance.reference_impl.engram_memory.envelope import failure
from engram_conformance.reports.document import load as load_report
from engram_conformance.spec.engram_memory.tool_names import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)

from ...mutants.engram_memory.base import BindingMutant, ServiceProxy
from ..inprocess import broken_verdict, checks_only, run_against

FIXTURE = Path(__file__).parents[1] / "fixtures" / "refusing_server.py"
EXECUTABLE = Path(sys.executable).with_name("engram-conformance")

#: Rules decided by refusals whose controls are argument calls (ok, or NOT_FOUND for a made-up
#: target): against either fixture every one stops at its control. "10.0 is accepted as 10"
#: is SCHEMA-033.
ACCEPTED_CONTROLS = (
    "SCHEMA-020",
    "SCHEMA-033",
    "SCHEMA-009",
    "SCHEMA-011",
    "SCHEMA-037",
    "XREF-001",
    "GATE-009",
    "HOST-013",
    "HOST-014",
    "HOST-015",
    "HOST-011",
    "HOST-008",
    "HOST-016",
    "HOST-017",
    "LIFE-002",
    "LIFE-021",
    "RET-002",
    "RET-004",
    "RET-005",
)
#: Rules decided by protocol refusals (-32603, -32602), whose controls need only pass the
#: protocol checks: the -32603 fixture stops at them; the INVALID_SCHEMA one passes them and
#: then breaks the rule (an envelope where a protocol error is due), which is a fail.
ANSWERED_CONTROLS = ("HOST-001", "HOST-002", "HOST-003", "HOST-005", "HOST-006", "HOST-007")


def descriptor(tmp_path: Path, mode: str) -> Path:
    path = tmp_path / f"{mode}.toml"
    command = json.dumps([sys.executable, str(FIXTURE), mode])
    path.write_text(
        f'name = "refusing-{mode}"\n[server]\ntransport = "stdio"\ncommand = {command}\n'
        "call_timeout_s = 2\nstartup_timeout_s = 20\n",
        encoding="utf-8",
    )
    return path


def run(tmp_path: Path, mode: str, rules: tuple[str, ...]) -> tuple[int, dict[str, Any]]:
    report_dir = tmp_path / "report"
    arguments = [
        str(EXECUTABLE),
        "run",
        "--target",
        str(descriptor(tmp_path, mode)),
        "--report-dir",
        str(report_dir),
        "--only",
        ",".join(rules),
    ]
    done = subprocess.run(arguments, capture_output=True, text=True, timeout=300, check=False)
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    document = load_report(report_dir / "report.json")
    return done.returncode, {rule.id: rule for rule in document.rules}


def assert_accepts_nothing(verdicts: dict[str, Any], rules: tuple[str, ...]) -> None:
    stopped = {rule: (verdicts[rule].verdict, verdicts[rule].reason or "") for rule in rules}
    wrong = {
        rule: seen
        for rule, seen in stopped.items()
        if seen[0] != "error" or ACCEPTS_NOTHING not in seen[1]
    }
    assert not wrong, wrong


def test_a_server_answering_invalid_schema_to_everything_passes_no_refusal(
    tmp_path: Path,
) -> None:
    code, verdicts = run(tmp_path, "invalid-schema", (*ACCEPTED_CONTROLS, *ANSWERED_CONTROLS))
    assert code == 1
    assert_accepts_nothing(verdicts, ACCEPTED_CONTROLS)
    # its answers pass the protocol checks, so those controls hold: then it breaks the rules
    broken = {rule: broken_verdict(rule) for rule in ANSWERED_CONTROLS}
    assert {rule: verdicts[rule].verdict for rule in ANSWERED_CONTROLS} == broken


def test_a_server_answering_internal_error_to_everything_passes_no_refusal(
    tmp_path: Path,
) -> None:
    rules = (*ACCEPTED_CONTROLS, *ANSWERED_CONTROLS)
    code, verdicts = run(tmp_path, "internal-error", rules)
    assert code == 1
    assert_accepts_nothing(verdicts, rules)


# one tool refusing every call, in process ------------------------------------------------------
class ToolRefuses(ServiceProxy):
    """Every call of ``tools`` answers the error envelope of ``code``; ``rejected``: every
    admission answers ok, its candidate rejected."""

    tools: tuple[str, ...] = ()
    code = "INVALID_SCHEMA"
    #: only calls carrying this argument are refused (None: every call of the tools)
    carrying: str | None = None

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        carries = self.carrying is None or (
            isinstance(arguments, dict) and self.carrying in arguments
        )
        if tool not in self.tools or not carries:
            return self.inner.call(tool, arguments, context)
        if self.code != "rejected":
            return failure(self.inner.spec, self.code, context.audit_id)
        envelope = self.inner.call(tool, arguments, context)
        if envelope.get("ok"):
            decided = envelope["output"]["value"]["outcome"]
            decided.pop("record_id", None)
            decided["status"] = "rejected"
        return envelope


def refusing(code: str, *tools: str, carrying: str | None = None) -> type[ToolRefuses]:
    attributes = {"tools": tools, "code": code, "carrying": carrying}
    return type(f"Refuses{code}", (ToolRefuses,), attributes)


class WithdrawAndForgetContextUnavailable(BindingMutant):
    """Every call of withdraw and forget answers -32603, confirmed or not."""

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> Any:
        if tool in (WITHDRAW, FORGET):
            raise ContextUnavailable("refuses every call")
        return super().admit_call(tool, arguments, meta)


#: (check, the service or binding mutant, the rules it decides): each check passed before its
#: control was added, against a server refusing every call of the tool it refuses.
ONE_TOOL = [
    ("withdraw_and_forget_without_a_confirmation_are_refused", None, ("GATE-001", "HOST-004")),
    ("semantic_ranking_is_never_silently_dropped", refusing("RANKING_UNAVAILABLE", SEARCH), ()),
    ("only_current_records_are_revealed", refusing("NOT_FOUND", GET), ("SEARCH-001",)),
    (
        "cursor_is_bound_to_its_query",
        refusing("STALE_PAGE", SEARCH, carrying="page_cursor"),
        ("PAGE-004",),
    ),
    (
        "cursor_is_bound_to_its_parameters",
        refusing("STALE_PAGE", SEARCH, carrying="page_cursor"),
        ("PAGE-005",),
    ),
    (
        "cursor_goes_stale_when_results_change",
        refusing("STALE_PAGE", SEARCH, carrying="page_cursor"),
        ("PAGE-006",),
    ),
    (
        "malformed_cursor_is_stale",
        refusing("STALE_PAGE", SEARCH, carrying="page_cursor"),
        ("PAGE-007",),
    ),
    ("records_stay_in_their_scope", refusing("NOT_FOUND", GET), ("SCOPE-001", "SCOPE-002")),
    (
        "foreign_ids_answer_like_unknown_ids",
        refusing("NOT_FOUND", FORGET),
        ("SCOPE-003", "SCOPE-005", "SCOPE-006"),
    ),
    ("get_not_found_tells_nothing", refusing("NOT_FOUND", GET), ("SCOPE-004",)),
    ("key_reuse_with_another_tool_conflicts", refusing("DIGEST_CONFLICT", FORGET), ("IDEM-007",)),
    ("credentials_are_never_stored", refusing("rejected", ADMIT), ("PRIV-006",)),
    ("withdrawn_candidate_never_becomes_a_record", refusing("ILLEGAL_TRANSITION", ADMIT), ()),
    (
        "tools_claim_authorizes_each_tool_on_its_own",
        refusing("UNAUTHORIZED", GET),
        ("HOST-011", "HOST-008"),
    ),
    ("passed_deadline_is_exceeded_and_writes_nothing", refusing("DEADLINE_EXCEEDED", SEARCH), ()),
    ("pending_candidate_is_neither_searchable_nor_readable", refusing("INVALID_SCHEMA", GET), ()),
    ("capture_answers_the_labelled_argument_examples", refusing("DEADLINE_EXCEEDED", CAPTURE), ()),
    ("reconciliation_needs_host_consent", refusing("UNAUTHORIZED", CAPTURE), ("LIFE-021",)),
    ("confirmation_written_in_arguments_has_no_effect", refusing("INVALID_SCHEMA", GET), ()),
    ("host_owned_values_are_never_arguments", refusing("INVALID_SCHEMA", FORGET), ()),
]
#: The rules a check decides that the cases above name by the check alone.
DEFAULT_RULES = {
    "semantic_ranking_is_never_silently_dropped": ("SEARCH-010", "SEARCH-017"),
    "withdrawn_candidate_never_becomes_a_record": ("LIFE-013",),
    "passed_deadline_is_exceeded_and_writes_nothing": ("HOST-015",),
    "pending_candidate_is_neither_searchable_nor_readable": ("LIFE-002",),
    "capture_answers_the_labelled_argument_examples": ("SCHEMA-033", "SCHEMA-038", "SCHEMA-039"),
    "confirmation_written_in_arguments_has_no_effect": ("GATE-009",),
    "host_owned_values_are_never_arguments": ("HOST-014",),
}


@pytest.mark.parametrize(("check", "mutant", "rules"), ONE_TOOL, ids=[c for c, _, _ in ONE_TOOL])
def test_a_tool_refusing_every_call_passes_no_refusal(
    tmp_path: Path, check: str, mutant: type[ToolRefuses] | None, rules: tuple[str, ...]
) -> None:
    rules = rules or DEFAULT_RULES[check]
    wrapping = (
        {"binding_mutant": WithdrawAndForgetContextUnavailable}
        if mutant is None
        else {"service_mutant": mutant}
    )
    with checks_only(check):
        result = run_against(tmp_path, only=rules, recheck=False, **wrapping)
    verdicts = {rule: result.verdicts[rule] for rule in rules}
    assert_accepts_nothing(verdicts, rules)
