"""The report document: its schema, typed views that round-trip, and precise rejection."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.reports import (
    SCHEMA_ID,
    InvalidReport,
    ReportDocument,
    Verdict,
    load,
    schema,
    tally,
    validate,
    worst,
)
from hypothesis import given
from jsonschema import Draft202012Validator

from .documents import SETTINGS, documents, small


def _undescribed(node: dict[str, Any], pointer: str = "") -> Iterator[str]:
    """Pointers of the fields in the schema that lack a description (conditions left out)."""
    for name, sub in node.get("properties", {}).items():
        if "description" not in sub:
            yield f"{pointer}/properties/{name}"
        yield from _undescribed(sub, f"{pointer}/properties/{name}")
    for name, sub in node.get("$defs", {}).items():
        yield from _undescribed(sub, f"{pointer}/$defs/{name}")
    for index, sub in enumerate(node.get("oneOf", [])):
        yield from _undescribed(sub, f"{pointer}/oneOf/{index}")


def test_the_schema_is_valid_2020_12_and_describes_every_field() -> None:
    Draft202012Validator.check_schema(schema())
    assert schema()["$id"] == SCHEMA_ID == "urn:engram-conformance:report:v1"
    assert list(_undescribed(schema())) == []


def test_the_small_document_validates_and_round_trips() -> None:
    data = small()
    document = ReportDocument.from_dict(data)
    assert document.to_dict() == data
    assert load(document.to_json()) == document
    assert document.conformance.conformance_class == "full"
    assert document.rules[1].failures[0].calls[0].arguments == {"id": "mem_x"}


@SETTINGS
@given(documents())
def test_generated_documents_validate_and_round_trip(data: dict[str, Any]) -> None:
    validate(data)
    document = ReportDocument.from_dict(data)
    assert document.to_dict() == data
    text = document.to_json()
    text.encode("utf-8")  # lone surrogates are written as escapes, never raw
    assert load(text) == document


def test_load_reads_a_file_and_names_it_when_invalid(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(ReportDocument.from_dict(small()).to_json(), encoding="utf-8")
    assert load(path).target.name == "reference"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(InvalidReport) as raised:
        load(path)
    assert raised.value.source == str(path)
    assert str(raised.value).startswith(f"{path}: at '': ")
    path.write_bytes(b'{"\xff": 1}')
    with pytest.raises(InvalidReport, match="not UTF-8"):
        load(path)


@pytest.mark.parametrize(
    "text",
    ["{", '{"a": NaN}', '{"a": 1, "a": 2}', "[1, 2] 3"],
    ids=["truncated", "nan", "duplicate-key", "trailing-data"],
)
def test_text_that_is_not_strict_json_is_rejected_at_the_root(text: str) -> None:
    with pytest.raises(InvalidReport, match="not valid JSON") as raised:
        load(text)
    assert raised.value.pointer == ""


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change that puts ``value`` at the JSON Pointer ``path``."""

    def change(data: dict[str, Any]) -> None:
        *parents, last = path.strip("/").split("/")
        node: Any = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value

    return change


def _delete(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda data: data.pop(key)


@pytest.mark.parametrize(
    ("change", "pointer", "problem"),
    [
        (_delete("$schema"), "", "'$schema' is a required property"),
        (_set("/run/extra", 1), "/run", "Additional properties are not allowed"),
        (_set("/spec/digest", "sha256:abc"), "/spec/digest", "does not match"),
        (_set("/run/started_at", "2026-11-29T12:00:00Z"), "/run/started_at", "does not match"),
        (_set("/run/started_at", "2026-13-40T12:00:00.000Z"), "/run/started_at", "real instant"),
        (_set("/conformance/summary", "two\nlines"), "/conformance/summary", "not be valid"),
        (_set("/rules/1/verdict", "maybe"), "/rules/1/verdict", "is not one of"),
        (_set("/rules/1/verdict", "warn"), "/rules/1/verdict", "is not one of"),
        (_set("/rules/2/verdict", "fail"), "/rules/2/verdict", "is not one of"),
        (_set("/rules/3/reason", None), "/rules/3/reason", "is not of type 'string'"),
        (_set("/rules/5/verdict", "fail"), "/rules/5/verdict", "is not one of"),
        (_set("/rules/0/baseline", "known_failure"), "/rules/0/verdict", "is not one of"),
        (_set("/rules/0/checks/0", "Bad-Name"), "/rules/0/checks/0", "does not match"),
        (
            _set("/rules/1/failures/0/transcript", "/tmp/t.jsonl"),
            "/rules/1/failures/0/transcript",
            "does not match",
        ),
        (
            _set("/rules/1/failures/0/transcript", "transcripts/../../t.jsonl"),
            "/rules/1/failures/0/transcript",
            "does not match",
        ),
        (_set("/rules/0/family", "IDEM"), "/rules/0/family", "not the prefix of rule id"),
        (_set("/rules/5/id", "IDEM-003"), "/rules/5/id", "duplicate rule id 'IDEM-003'"),
        (_set("/counts/fail", 3), "/counts/fail", "says 3 but 1 rules are fail"),
        (_set("/exit_code", 0), "/exit_code", "is 0 but rule ENV-002 fails"),
    ],
)
def test_invalid_documents_are_rejected_with_a_precise_pointer(
    change: Callable[[dict[str, Any]], None], pointer: str, problem: str
) -> None:
    data = small()
    change(data)
    with pytest.raises(InvalidReport) as raised:
        validate(data)
    assert raised.value.pointer == pointer
    assert problem in raised.value.problem


def test_a_stale_entry_alone_forbids_exit_code_0() -> None:
    data = small()
    data["rules"][1].update(verdict="pass", failures=[])
    data["rules"][4]["baseline"] = "known_failure"
    data["counts"].update({"pass": 3, "fail": 0})
    data["exit_code"] = 0
    with pytest.raises(InvalidReport, match="IDEM-004 is a stale baseline entry"):
        validate(data)
    data["rules"][5]["baseline"] = None
    validate(data)


def test_an_error_on_a_must_rule_alone_forbids_exit_code_0() -> None:
    """As the harness's gate reads it: a server that errors on every check must not pass."""
    data = small()
    data["rules"][1].update(verdict="pass", failures=[])
    data["rules"][5]["baseline"] = None
    data["counts"].update({"pass": 3, "fail": 0})
    data["exit_code"] = 0
    with pytest.raises(InvalidReport, match="IDEM-003 is an error on a must rule"):
        validate(data)
    data["rules"][4]["baseline"] = "known_failure"
    validate(data)


def test_verdicts_rank_from_pass_to_error() -> None:
    assert [v.severity for v in Verdict] == [0, 1, 2, 3, 4]
    assert worst([Verdict.WARN, Verdict.ERROR, Verdict.FAIL]) == Verdict.ERROR
    assert worst([]) == Verdict.PASS
    assert Verdict.NOT_APPLICABLE.label == "not applicable"


def test_tally_counts_every_verdict_in_the_reports_order() -> None:
    counts = tally(["fail", Verdict.PASS, "fail"])
    assert list(counts) == ["pass", "fail", "warn", "not_applicable", "error"]
    assert dict(counts) == {"pass": 1, "fail": 2, "warn": 0, "not_applicable": 0, "error": 0}


@pytest.mark.parametrize(
    ("verdict", "baseline", "fails"),
    [
        ("fail", None, True),
        ("fail", "known_failure", False),
        ("pass", "stale", True),
        ("not_applicable", "stale", True),
        ("error", None, True),  # rule 0 is a must rule
        ("error", "known_failure", False),
        ("warn", None, False),
        ("pass", None, False),
    ],
)
def test_what_fails_the_gate(verdict: str, baseline: str | None, fails: bool) -> None:
    rule = ReportDocument.from_dict(small()).rules[0]
    assert replace(rule, verdict=Verdict(verdict), baseline=baseline).fails_gate is fails


def test_a_flaky_failure_or_an_error_on_a_should_rule_passes_the_gate() -> None:
    rule = ReportDocument.from_dict(small()).rules[0]
    assert not replace(rule, verdict=Verdict.FAIL, flaky=True).fails_gate
    assert not replace(rule, verdict=Verdict.ERROR, level="should").fails_gate


def test_problems_put_new_failures_before_known_ones() -> None:
    data = small()
    known = json.loads(json.dumps(data["rules"][1]))
    known.update(id="ENV-003", baseline="known_failure")
    data["rules"].insert(1, known)
    data["counts"]["fail"] = 2
    problems = ReportDocument.from_dict(data).problems()
    assert [rule.id for rule in problems["Failures"]] == ["ENV-002", "ENV-003"]
    assert [rule.id for rule in problems["Errors"]] == ["IDEM-003"]
    assert [rule.id for rule in problems["Stale baseline entries"]] == ["IDEM-004"]
    assert [rule.id for rule in problems["Warnings"]] == ["SEARCH-004"]
