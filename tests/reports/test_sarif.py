"""SARIF 2.1.0: a valid log that code scanning accepts, one result per rule the server breaks."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from engram_conformance.conformance import contracts
from engram_conformance.reports import ReportDocument, Verdict, sarif
from hypothesis import given

from ..conftest import REPO_ROOT
from .documents import SETTINGS, documents, small
from .snapshot import assert_snapshot


def _object(required: list[str], **properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "required": required,
        "properties": properties,
        "additionalProperties": False,
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


_LEVEL = {"enum": ["none", "note", "warning", "error"]}
_TEXT = _object(["text"], text={"type": "string"}, markdown={"type": "string"})

#: No installable package ships the SARIF 2.1.0 JSON schema, so this is the part of it the
#: renderer uses, written by hand from the standard's object definitions: each object's
#: property names (closed here, so that a misspelt name fails), the properties the standard
#: requires, and those GitHub code scanning requires (a result's message text and physical
#: location, a region's start line).
SARIF_SUBSET: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_object(
        ["version", "runs"],
        **{
            "$schema": {"type": "string"},
            "version": {"const": "2.1.0"},
            "runs": {"type": "array", "items": _ref("run")},
        },
    ),
    "$defs": {
        "run": _object(
            ["tool"],
            tool=_object(["driver"], driver=_ref("toolComponent")),
            invocations={"type": "array", "items": _ref("invocation")},
            results={"type": "array", "items": _ref("result")},
            properties=_ref("propertyBag"),
        ),
        "toolComponent": _object(
            ["name"],
            name={"type": "string", "minLength": 1},
            version={"type": "string"},
            rules={"type": "array", "items": _ref("reportingDescriptor"), "uniqueItems": True},
        ),
        "reportingDescriptor": _object(
            ["id"],
            id={"type": "string"},
            shortDescription=_TEXT,
            fullDescription=_TEXT,
            help=_TEXT,
            defaultConfiguration=_object([], level=_LEVEL, enabled={"type": "boolean"}),
            properties=_ref("propertyBag"),
        ),
        "invocation": _object(
            ["executionSuccessful"],
            executionSuccessful={"type": "boolean"},
            exitCode={"type": "integer"},
            commandLine={"type": "string"},
            startTimeUtc={"type": "string", "format": "date-time"},
        ),
        "result": _object(
            ["message", "ruleId", "locations"],
            ruleId={"type": "string"},
            ruleIndex={"type": "integer", "minimum": -1},
            level=_LEVEL,
            message=_object(["text"], text={"type": "string", "minLength": 1}),
            locations={"type": "array", "items": _ref("location"), "minItems": 1},
            suppressions={"type": "array", "items": _ref("suppression"), "uniqueItems": True},
            properties=_ref("propertyBag"),
        ),
        "location": _object(
            ["physicalLocation"],
            physicalLocation=_object(
                ["artifactLocation", "region"],
                artifactLocation=_object(["uri"], uri={"type": "string", "minLength": 1}),
                region=_object(["startLine"], startLine={"type": "integer", "minimum": 1}),
            ),
        ),
        "suppression": _object(
            ["kind"],
            kind={"enum": ["inSource", "external"]},
            status={"enum": ["accepted", "underReview", "rejected"]},
            justification={"type": "string"},
        ),
        "propertyBag": {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
        },
    },
}

#: An RFC 3986 URI reference: unreserved, reserved and percent-escaped characters only.
_URI_REFERENCE = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-F]{2})+")


def _expected_level(rule: Any) -> str | None:
    if rule.verdict == Verdict.FAIL:
        return "warning" if rule.flaky else "error"
    if rule.verdict == Verdict.ERROR:
        return "error" if rule.level == "must" else "note"
    return "warning" if rule.verdict == Verdict.WARN else None


def check_code_scanning_log(log: dict[str, Any]) -> None:
    """Valid against the subset, and what code scanning needs to place and name each alert."""
    jsonschema.Draft202012Validator(
        SARIF_SUBSET, format_checker=jsonschema.FormatChecker()
    ).validate(log)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        (location,) = result["locations"]
        assert _URI_REFERENCE.fullmatch(location["physicalLocation"]["artifactLocation"]["uri"])


@SETTINGS
@given(documents())
def test_every_document_gives_a_valid_log_with_a_result_per_broken_rule(data: dict) -> None:
    document = ReportDocument.from_dict(data)
    text = sarif.render(document)
    log = json.loads(text)
    check_code_scanning_log(log)
    (run,) = log["runs"]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [
        rule.id for rule in document.rules
    ]
    expected = [
        (rule.id, level) for rule in document.rules if (level := _expected_level(rule)) is not None
    ]
    assert [(result["ruleId"], result["level"]) for result in run["results"]] == expected
    for result in run["results"]:
        rule = next(rule for rule in document.rules if rule.id == result["ruleId"])
        known = rule.baseline == "known_failure"
        assert ("suppressions" in result) == known


def test_results_point_at_the_descriptor_or_else_at_the_rules_of_the_spec() -> None:
    """The rules' file is the contract's own: its plug-in's ``rules_file``, kept in the
    report's ``spec``, else the kit's layout for the contract's name."""

    def uris(descriptor: str | None, rules_file: str | None = None) -> set[str]:
        data = small()
        data["target"]["descriptor"] = descriptor
        if rules_file is not None:
            data["spec"]["rules_file"] = rules_file
        log = sarif.sarif_log(ReportDocument.from_dict(data))
        return {
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for result in log["runs"][0]["results"]
        }

    assert uris("./ci/engram target.toml") == {"ci/engram%20target.toml"}
    assert uris("/home/runner/work/x/engram-target.toml", "spec/mem/rules.json") == {
        "file:///home/runner/work/x/engram-target.toml"
    }
    assert uris(None, "spec/mem/rules.json") == {"spec/mem/rules.json"}
    assert uris(None) == {"spec/engram_memory/rules.json"}  # the small document's contract


def test_each_shipped_contract_names_its_own_rules_file() -> None:
    for name in contracts.names():
        rules_file = contracts.contract(name).rules_file
        assert rules_file is not None and (REPO_ROOT / rules_file).is_file(), name
        assert f"/{name.replace('-', '_')}/" in rules_file


def test_the_message_is_what_the_first_failure_expected_and_observed() -> None:
    log = sarif.sarif_log(ReportDocument.from_dict(small()))
    [result] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "ENV-002"]
    text = result["message"]["text"]
    assert text.startswith("ENV-002 fail (must): envelope_has_contract_shape expected ok is false")
    assert 'observed: {"ok": false, "error": "<script>alert(1)</script>"}' in text


def test_a_known_failure_keeps_its_level_and_is_suppressed_externally() -> None:
    data = small()
    data["rules"][1]["baseline"] = "known_failure"
    data["exit_code"] = 1  # IDEM-004 is still a stale entry
    log = sarif.sarif_log(ReportDocument.from_dict(data))
    [result] = [r for r in log["runs"][0]["results"] if r["ruleId"] == "ENV-002"]
    assert result["level"] == "error"
    assert result["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": "listed in the baseline as a known failure",
        }
    ]


def test_sarif_of_the_small_document() -> None:
    text = sarif.render(ReportDocument.from_dict(small()))
    check_code_scanning_log(json.loads(text))
    assert_snapshot(text, "small.sarif")


@pytest.mark.parametrize(
    ("key", "value"),
    [("ruleID", "ENV-002"), ("level", "severe"), ("locations", [])],
    ids=["misspelt-property", "no-such-level", "no-location"],
)
def test_the_subset_refuses_what_code_scanning_would(key: str, value: Any) -> None:
    log = sarif.sarif_log(ReportDocument.from_dict(small()))
    log["runs"][0]["results"][0][key] = value
    with pytest.raises(jsonschema.ValidationError):
        check_code_scanning_log(log)
