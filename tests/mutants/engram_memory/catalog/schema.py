"""Servers that get one argument check wrong (SCHEMA), the way real servers do: a schema kept open,
a bound off by one or counted in characters, a string normalized, a number clamped, checks in
the wrong order. Many are lenient (``repairs.Repairs``): they fix the arguments and go on.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from typing import Any

from engram_conformance.spec.engram_memory import (
    ArgumentVerdict,
    canonical_json,
    validate_arguments,
)
from engram_conformance.spec.engram_memory.tool_names import ADMIT, CAPTURE, SEARCH, WITHDRAW

from ...caught import Caught
from ..answers import refusal
from ..base import ServiceProxy
from ..repairs import CutTo, Repairs, cut, examples, field_name, parent, strings_mapped, value_at

DIGEST_FORM = re.compile(r"sha256:[0-9a-f]{64}")
SURROGATE = re.compile("[\ud800-\udfff]")


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
            return refusal("INVALID_SCHEMA", context)
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
        normalized = strings_mapped(arguments, lambda s: unicodedata.normalize("NFC", s))
        return self.inner.call(tool, normalized, context)


class SurrogatesReplaced(ServiceProxy):
    """An unpaired surrogate is replaced by U+FFFD, as a lenient decoder does, and the call
    goes on."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        replaced = strings_mapped(arguments, lambda s: SURROGATE.sub("\ufffd", s))
        return self.inner.call(tool, replaced, context)


class DigestFormAsSchema(ServiceProxy):
    """A digest not of the digest form is answered INVALID_SCHEMA instead of INVALID_DIGEST."""

    def alter(self, tool: str, arguments: Any, context: Any, envelope: dict[str, Any]) -> Any:
        if envelope.get("error", {}).get("code") == "INVALID_DIGEST":
            return refusal("INVALID_SCHEMA", context)
        return envelope


class DigestsBeforeSchema(ServiceProxy):
    """capture checks its digest fields first: a malformed one answers INVALID_DIGEST even when
    the schema or a cross-reference fails too."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool == CAPTURE and any(
            isinstance(d, str) and not DIGEST_FORM.fullmatch(d) for d in self._digests(arguments)
        ):
            return refusal("INVALID_DIGEST", context)
        return self.inner.call(tool, arguments, context)

    def _digests(self, arguments: Any) -> list[Any]:
        payload, evidence = arguments.get("payload"), arguments.get("evidence")
        citations = payload.get("citations") if isinstance(payload, dict) else None
        found = [c.get("content_digest") for c in citations or [] if isinstance(c, dict)]
        return [*found, evidence.get("evidence_digest") if isinstance(evidence, dict) else None]


class EmptyCandidateIdLookedUp(ServiceProxy):
    """An empty candidate_id is looked up, and not found, instead of refused. From outside this
    cannot be told apart from a lookup made before the schema check: the seed orders neither,
    so it breaks the order of checks (HOST-016), not a must rule."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if tool in (ADMIT, WITHDRAW) and arguments.get("candidate_id") == "":
            return refusal("NOT_FOUND", context)
        return self.inner.call(tool, arguments, context)


class KeyCountedInCharacters(ServiceProxy):
    """The idempotency key's 16-byte minimum is counted in characters: a key of four 4-byte
    emoji is refused."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        key = arguments.get("idempotency_key")
        if isinstance(key, str) and 0 < len(key) < 16 <= len(key.encode("utf-8", "replace")):
            return refusal("INVALID_SCHEMA", context)
        return self.inner.call(tool, arguments, context)


class ZeroFractionRefused(ServiceProxy):
    """A number with a fraction part, even a zero one (10.0), is refused as not an integer."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        if _has_float(arguments):
            return refusal("INVALID_SCHEMA", context)
        return self.inner.call(tool, arguments, context)


class ArgumentBoundExclusive(ServiceProxy):
    """An argument object of exactly 1,048,576 canonical bytes is refused (< for <=)."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        try:
            size = len(canonical_json(arguments))
        except ValueError:  # no canonical form (an unpaired surrogate): the reference decides
            size = 0
        if size >= 1_048_576:
            return refusal("INVALID_SCHEMA", context)
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
            return refusal("DIGEST_CONFLICT", context)
        envelope = self.inner.call(tool, arguments, context)
        if not envelope["ok"]:
            self.reserved.add(identity)
        return envelope


#: The opaque references SCHEMA-005 bounds (a citation_ids item is a citation id); type_ref and
#: family_refs items are SCHEMA-036's.
OPAQUE_REFERENCES = frozenset(
    {
        "purpose_ref",
        "component_id",
        "primary_component_id",
        "citation_id",
        "citation_ids",
        "source_ref",
        "evidence_ref",
        "reason_ref",
    }
)
MAX_SAFE_INTEGER = 2**53 - 1


class OpaqueRefsCountedInCharacters(Repairs):
    """Opaque references are bounded at 512 characters, not UTF-8 bytes: one of 512 characters
    and more bytes is taken (cut to 512 bytes wherever it appears, so what cites it resolves)."""

    rule = "SCHEMA-005"

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        ref = value_at(arguments, verdict.pointer)
        if field_name(verdict.pointer) not in OPAQUE_REFERENCES or not isinstance(ref, str):
            return None
        if not 0 < len(ref) <= 512:
            return None
        short = cut(ref, 512)
        return strings_mapped(arguments, lambda s: short if s == ref else s)


class TextCountedInCharacters(CutTo):
    """A component's text is bounded at 65,536 characters, not UTF-8 bytes."""

    rule, most = "SCHEMA-024", 65_536


class LocatorUnbounded(CutTo):
    """A citation's locator scheme and value have no upper bound: a 513-byte value is taken
    (only an empty one is refused)."""

    rule, most = "SCHEMA-027", 512

    def takes(self, text: str) -> bool:
        return bool(text)


class AttestationCountedInCharacters(CutTo):
    """evidence.attestation is bounded at 4,096 characters, not UTF-8 bytes."""

    rule, most = "SCHEMA-031", 4096


class UnsafeIntegersClamped(Repairs):
    """Instants beyond the safe integers (t, t_end, at) are clamped to +-(2^53 - 1), as a
    server storing them in a float or a bounded column does, instead of refused."""

    rule = "SCHEMA-021"

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        holder, key = parent(arguments, verdict.pointer)
        number = value_at(arguments, verdict.pointer)
        if holder is None or isinstance(number, bool) or not isinstance(number, int | float):
            return None
        holder[key] = max(-MAX_SAFE_INTEGER, min(MAX_SAFE_INTEGER, int(number)))
        return arguments


class FamilyRefsTruncated(Repairs):
    """A family_refs list of more than 64 references is cut to its first 64."""

    rule = "SCHEMA-029"

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        holder, key = parent(arguments, verdict.pointer)
        refs = value_at(arguments, verdict.pointer)
        if holder is None or not isinstance(refs, list) or len(refs) <= 64:
            return None
        holder[key] = refs[:64]
        return arguments


class MissingNetworkForbids(Repairs):
    """A capability_policy without network is filled with network's default, 'forbid', instead
    of refused; one without minimum_channels is still refused."""

    rule = "SCHEMA-017"

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        holder, key = parent(arguments, verdict.pointer)
        if not isinstance(holder, dict) or key != "network" or key in holder:
            return None
        holder[key] = "forbid"
        return arguments


class EmptyCursorIsFirstPage(Repairs):
    """An empty page_cursor is taken as no cursor (the first page) instead of refused."""

    rule = "SCHEMA-018"

    def repair(self, tool: str, arguments: Any, verdict: ArgumentVerdict) -> Any | None:
        holder, key = parent(arguments, verdict.pointer)
        if not isinstance(holder, dict) or holder.get(key) != "":
            return None
        del holder[key]
        return arguments


class EmptyMaximaRefused(ServiceProxy):
    """Base: a capture whose ``place`` (a bound the seed gives only as a maximum) is empty is
    refused INVALID_SCHEMA, as if the bound started at one."""

    place = ""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        held = value_at(arguments, self.place) if tool == CAPTURE else None
        if held is not None and len(held) == 0:
            return refusal("INVALID_SCHEMA", context)
        return self.inner.call(tool, arguments, context)


class EmptyAttestationRefused(EmptyMaximaRefused):
    """Refuses an empty evidence.attestation (at most 4,096 bytes: none is fine)."""

    place = "/evidence/attestation"


class EmptyFamilyRefsRefused(EmptyMaximaRefused):
    """Refuses an empty reconciliation.family_refs (at most 64: none is fine)."""

    place = "/payload/reconciliation/family_refs"


#: The capture's singular opaque references (list items aside), each bounded at 512 bytes alone.
SINGULAR_REFERENCES = (
    "/payload/purpose_ref",
    "/payload/primary_component_id",
    "/payload/primary_event/type_ref",
    "/payload/primary_event/citation_id",
    "/evidence/evidence_ref",
)
#: InnoDB's largest index key, in bytes.
INDEX_KEY_BYTES = 2048


class ReferencesShareOneKey(ServiceProxy):
    """capture keeps its singular references in one index key of at most 2,048 bytes, as a
    store with a bounded key does: each reference within its own 512 bytes fits, several at
    512 at once do not, and such a valid capture is refused INVALID_SCHEMA."""

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        overlong = tool == CAPTURE and self._key_bytes(arguments) > INDEX_KEY_BYTES
        if overlong and validate_arguments(tool, arguments, clock=None, spec=self.inner.spec).ok:
            return refusal("INVALID_SCHEMA", context)
        return self.inner.call(tool, arguments, context)

    def _key_bytes(self, arguments: Any) -> int:
        held = [value_at(arguments, pointer) for pointer in SINGULAR_REFERENCES]
        return sum(
            len(ref.encode("utf-8", "surrogatepass")) for ref in held if isinstance(ref, str)
        )


def _by(rule: str, checks: set[str]) -> Caught:
    """``rule`` broken, reported by exactly the ``checks``."""
    return Caught.reported({rule: checks})


#: (mutant, the rules it breaks, each with the checks that report it). The run covers SCHEMA and
#: XREF.
MUTANTS: list[tuple[type, Caught]] = [
    (
        OpenSchema,
        _by(
            "SCHEMA-001",
            examples("search", "get", "capture", "request_admission", "withdraw", "forget"),
        ),
    ),
    (NullMeansAbsent, _by("SCHEMA-002", examples("search", "get", "capture"))),
    (QueryBoundExclusive, _by("SCHEMA-012", examples("search"))),
    (RecordIdTrailingNewline, _by("SCHEMA-019", examples("get", "forget"))),
    (
        NormalizesToNfc,
        _by("SCHEMA-006", examples("capture", "request_admission", "withdraw", "forget")),
    ),
    (
        SurrogatesReplaced,
        _by("SCHEMA-032", examples("search", "capture", "request_admission")),
    ),
    # INVALID_SCHEMA is a code of the row, so SCHEMA-010 holds; seen from outside, answering it
    # for a digest is also checking the clock first.
    (
        DigestFormAsSchema,
        Caught.reported(
            {
                "SCHEMA-035": examples("capture"),
                "SCHEMA-011": {"argument_checks_answer_in_their_order"},
            }
        ),
    ),
    (DigestsBeforeSchema, _by("SCHEMA-011", {"argument_checks_answer_in_their_order"})),
    (
        KeyCountedInCharacters,
        _by("SCHEMA-007", examples("capture", "request_admission", "withdraw", "forget")),
    ),
    (ZeroFractionRefused, _by("SCHEMA-033", examples("search", "get", "capture"))),
    (
        ArgumentBoundExclusive,
        _by("SCHEMA-037", {"argument_bound_is_measured_on_the_canonical_form"}),
    ),
    (
        PrimaryEventCitationUnchecked,
        _by("XREF-006", {"capture_answers_the_labelled_cross_reference_examples"}),
    ),
    (RefusedCaptureReservesKey, _by("XREF-010", {"refused_capture_writes_nothing"})),
    (OpaqueRefsCountedInCharacters, _by("SCHEMA-005", examples("capture", "withdraw", "forget"))),
    (TextCountedInCharacters, _by("SCHEMA-024", examples("capture"))),
    (LocatorUnbounded, _by("SCHEMA-027", examples("capture"))),
    (AttestationCountedInCharacters, _by("SCHEMA-031", examples("capture"))),
    (UnsafeIntegersClamped, _by("SCHEMA-021", examples("capture"))),
    (FamilyRefsTruncated, _by("SCHEMA-029", examples("capture"))),
    (MissingNetworkForbids, _by("SCHEMA-017", examples("search"))),
    (EmptyCursorIsFirstPage, _by("SCHEMA-018", examples("search"))),
    # the valid example with an empty attestation is recorded against the rules of the fields it
    # sets: its type's (SCHEMA-004) and SCHEMA-038
    (
        EmptyAttestationRefused,
        Caught.reported({"SCHEMA-004": examples("capture"), "SCHEMA-038": examples("capture")}),
    ),
    (EmptyFamilyRefsRefused, _by("SCHEMA-038", examples("capture"))),
    # no one bound is wrong: the valid example setting every singular reference at 512 bytes
    (ReferencesShareOneKey, _by("SCHEMA-039", examples("capture"))),
]
#: Mutants that change what a capture's reconciliation carries: they run against a deployment
#: consenting to the examples' families, so that what they let through is committed.
RECONCILIATION_MUTANTS = {FamilyRefsTruncated}
#: An empty candidate_id looked up breaks the order of checks (HOST-016), and no SCHEMA or XREF
#: rule; the examples of request_admission or withdraw report it.
LOOKED_UP_EMPTY = _by("HOST-016", examples("request_admission", "withdraw"))
