"""Each SCHEMA and XREF check fires on a server that breaks its rule, and only the rules it breaks.

Every mutant wraps the reference service and gets one argument check wrong, the way real servers
do; the reference itself passes both families.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.runner import RunResult
from engram_conformance.reference_impl.envelope import failure
from engram_conformance.spec import canonical_json, load, validate_arguments
from engram_conformance.spec.tool_names import ADMIT, CAPTURE, SEARCH, WITHDRAW

from ..conformance.inprocess import ServiceProxy, broken_verdict, run_against

FAMILIES = ("SCHEMA", "XREF")
DIGEST_FORM = re.compile(r"sha256:[0-9a-f]{64}")
SURROGATE = re.compile("[\ud800-\udfff]")


def _refusal(proxy: ServiceProxy, code: str, context: Any) -> dict[str, Any]:
    """The reference's error envelope of ``code`` for this call."""
    return failure(proxy.inner.spec, code, context.audit_id)


def _strings_mapped(value: Any, change: Callable[[str], str]) -> Any:
    """``value`` with ``change`` applied to every string value (not to keys)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: _strings_mapped(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_strings_mapped(item, change) for item in value]
    return value


def _has_float(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_float(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_float(item) for item in value)
    return isinstance(value, float)


class OpenSchema(ServiceProxy):
    """Properties the schema does not name are dropped instead of refused (an open schema)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        arguments = copy.deepcopy(arguments)
        for error in list(self.inner.spec.input_validator(tool).iter_errors(arguments)):
            if error.validator == "additionalProperties":
                named = error.schema.get("properties", {})
                for key in [key for key in error.instance if key not in named]:
                    del error.instance[key]
        return self.inner.call(tool, arguments, context)


class NullMeansAbsent(ServiceProxy):
    """An optional field sent as null is taken as absent."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        return self.inner.call(tool, self._without_nulls(arguments), context)

    def _without_nulls(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self._without_nulls(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [self._without_nulls(item) for item in value]
        return value


class QueryBoundExclusive(ServiceProxy):
    """search refuses a query of exactly 8,192 bytes: its bound is checked with < for <=."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        query = arguments.get("query") if tool == SEARCH else None
        if isinstance(query, str) and len(query.encode("utf-8", "surrogatepass")) >= 8192:
            return _refusal(self, "INVALID_SCHEMA", context)
        return self.inner.call(tool, arguments, context)


class RecordIdTrailingNewline(ServiceProxy):
    """record_id is matched with Python's re and '$', which also matches before a final
    newline: 'mem_…\\n' passes the pattern, and the lookup then finds nothing."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        record_id = arguments.get("record_id")
        if isinstance(record_id, str) and re.match(r"^mem_[a-z2-7]+$", record_id):
            arguments = {**arguments, "record_id": record_id.rstrip("\n")}
        return self.inner.call(tool, arguments, context)


class NormalizesToNfc(ServiceProxy):
    """Strings that are not NFC are normalized silently instead of refused."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        normalized = _strings_mapped(arguments, lambda s: unicodedata.normalize("NFC", s))
        return self.inner.call(tool, normalized, context)


class SurrogatesReplaced(ServiceProxy):
    """An unpaired surrogate is replaced by U+FFFD, as a lenient decoder does, and the call
    goes on."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        replaced = _strings_mapped(arguments, lambda s: SURROGATE.sub("\ufffd", s))
        return self.inner.call(tool, replaced, context)


class DigestFormAsSchema(ServiceProxy):
    """A digest not of the digest form is answered INVALID_SCHEMA instead of INVALID_DIGEST."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if envelope.get("error", {}).get("code") == "INVALID_DIGEST":
            return _refusal(self, "INVALID_SCHEMA", context)
        return envelope


class DigestsBeforeSchema(ServiceProxy):
    """capture checks its digest fields first: a malformed one answers INVALID_DIGEST even when
    the schema or a cross-reference fails too."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == CAPTURE and any(
            isinstance(d, str) and not DIGEST_FORM.fullmatch(d) for d in self._digests(arguments)
        ):
            return _refusal(self, "INVALID_DIGEST", context)
        return self.inner.call(tool, arguments, context)

    def _digests(self, arguments: Any) -> list[Any]:
        payload, evidence = arguments.get("payload"), arguments.get("evidence")
        citations = payload.get("citations") if isinstance(payload, dict) else None
        found = [c.get("content_digest") for c in citations or [] if isinstance(c, dict)]
        return [*found, evidence.get("evidence_digest") if isinstance(evidence, dict) else None]


class EmptyCandidateIdLookedUp(ServiceProxy):
    """An empty candidate_id is looked up, and not found, instead of refused."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool in (ADMIT, WITHDRAW) and arguments.get("candidate_id") == "":
            return _refusal(self, "NOT_FOUND", context)
        return self.inner.call(tool, arguments, context)


class KeyCountedInCharacters(ServiceProxy):
    """The idempotency key's 16-byte minimum is counted in characters: a key of four 4-byte
    emoji is refused."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        key = arguments.get("idempotency_key")
        if isinstance(key, str) and 0 < len(key) < 16 <= len(key.encode("utf-8", "replace")):
            return _refusal(self, "INVALID_SCHEMA", context)
        return self.inner.call(tool, arguments, context)


class ZeroFractionRefused(ServiceProxy):
    """A number with a fraction part, even a zero one (10.0), is refused as not an integer."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if _has_float(arguments):
            return _refusal(self, "INVALID_SCHEMA", context)
        return self.inner.call(tool, arguments, context)


class ArgumentBoundExclusive(ServiceProxy):
    """An argument object of exactly 1,048,576 canonical bytes is refused (< for <=)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        try:
            size = len(canonical_json(arguments))
        except ValueError:  # no canonical form (an unpaired surrogate): the reference decides
            size = 0
        if size >= 1_048_576:
            return _refusal(self, "INVALID_SCHEMA", context)
        return self.inner.call(tool, arguments, context)


class PrimaryEventCitationUnchecked(ServiceProxy):
    """capture checks that primary_event.citation_id is a citation, not that the primary
    component cites it (XREF-006): such a capture is committed."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == CAPTURE and validate_arguments(tool, arguments, clock=None).rule == "XREF-006":
            arguments = copy.deepcopy(arguments)
            payload = arguments["payload"]
            primary = next(
                c
                for c in payload["components"]
                if c["component_id"] == payload["primary_component_id"]
            )
            primary["citation_ids"].append(payload["primary_event"]["citation_id"])
        return self.inner.call(tool, arguments, context)


class RefusedCaptureReservesKey(ServiceProxy):
    """A refused capture still reserves its idempotency key: the key's next use is a
    DIGEST_CONFLICT."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.reserved: set[tuple[str, ...]] = set()

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        key = arguments.get("idempotency_key")
        if tool != CAPTURE or not isinstance(key, str):
            return self.inner.call(tool, arguments, context)
        identity = (context.tenant, context.workspace, context.principal, key)
        if identity in self.reserved:
            return _refusal(self, "DIGEST_CONFLICT", context)
        envelope = self.inner.call(tool, arguments, context)
        if not envelope["ok"]:
            self.reserved.add(identity)
        return envelope


def _broken(result: RunResult) -> set[str]:
    return {
        rule
        for rule, verdict in result.verdicts.items()
        if rule.startswith(FAMILIES) and verdict.verdict in ("fail", "warn")
    }


def _reporting_checks(result: RunResult, rule: str) -> set[str]:
    return {failure.check for failure in result.ledger.evidence[rule].failures}


def _examples(*tools: str) -> set[str]:
    """The ids of the checks that send these tools' labelled argument examples."""
    return {f"{tool}_answers_the_labelled_argument_examples" for tool in tools}


#: Each mutant, the rules it breaks, and checks that must report it (each check of the module is
#: named at least once; only the first failures of a rule are kept, so not every check is seen).
MUTANTS = [
    (OpenSchema, {"SCHEMA-001"}, _examples("search")),
    (NullMeansAbsent, {"SCHEMA-002"}, _examples("search", "get")),
    (QueryBoundExclusive, {"SCHEMA-012"}, _examples("search")),
    (RecordIdTrailingNewline, {"SCHEMA-019"}, _examples("get", "forget")),
    (NormalizesToNfc, {"SCHEMA-006"}, _examples("capture")),
    (SurrogatesReplaced, {"SCHEMA-032"}, _examples("search", "capture")),
    # Seen from outside, answering INVALID_SCHEMA for a digest is also checking the clock first.
    (
        DigestFormAsSchema,
        {"SCHEMA-010", "SCHEMA-011"},
        _examples("capture") | {"argument_checks_answer_in_their_order"},
    ),
    (DigestsBeforeSchema, {"SCHEMA-011"}, {"argument_checks_answer_in_their_order"}),
    (EmptyCandidateIdLookedUp, {"SCHEMA-034"}, _examples("request_admission", "withdraw")),
    (
        KeyCountedInCharacters,
        {"SCHEMA-007"},
        _examples("capture", "request_admission", "withdraw", "forget"),
    ),
    (ZeroFractionRefused, {"SCHEMA-033"}, _examples("search", "get", "capture")),
    (ArgumentBoundExclusive, {"SCHEMA-009"}, {"argument_object_is_bounded_by_one_mebibyte"}),
    (
        PrimaryEventCitationUnchecked,
        {"XREF-006"},
        {"capture_answers_the_labelled_cross_reference_examples"},
    ),
    (RefusedCaptureReservesKey, {"XREF-010"}, {"refused_capture_writes_nothing"}),
]


@pytest.mark.parametrize(
    ("mutant", "rules", "checks"), MUTANTS, ids=[m.__name__ for m, _, _ in MUTANTS]
)
def test_schema_mutant_is_caught(
    tmp_path: Path, mutant: type[ServiceProxy], rules: set[str], checks: set[str]
) -> None:
    result = run_against(tmp_path, service_mutant=mutant, only=FAMILIES)
    assert _broken(result) == rules, {r: result.verdicts[r] for r in _broken(result) ^ rules}
    for rule in rules:
        assert result.verdicts[rule].verdict == broken_verdict(rule)
    reporting = set().union(*(_reporting_checks(result, rule) for rule in rules))
    assert checks <= reporting, reporting


def test_reference_passes_the_schema_and_cross_reference_rules(tmp_path: Path) -> None:
    result = run_against(tmp_path, only=FAMILIES)
    rules = {rule for rule in load().rules if rule.startswith(FAMILIES)}
    assert {rule: v.verdict for rule, v in result.verdicts.items()} == dict.fromkeys(rules, "pass")
