"""Host bindings that each let one claim case through (issue 29): a mutant per case of
``context_cases.missing`` and ``context_cases.malformed`` (HOST-004, HOST-023) and per other
purpose (HOST-006), each reading that one claim leniently the way real servers do and all else
as the reference does. Each is caught with failures about its own case alone: the case tells
by itself, not because the call broke something else too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from engram_conformance.conformance.engram_memory.checks.context_cases import STRING_CLAIMS
from engram_conformance.reference_impl.engram_memory.binding import (
    ContextUnavailable,
    sent_purpose,
)
from engram_conformance.reference_impl.engram_memory.context import InvocationContext
from engram_conformance.spec.engram_memory import instant

from ...caught import Caught
from ..base import BindingMutant

#: What a lenient reading drops altogether.
DROPPED = object()
TOOL_NAME = re.compile(r"^engram_memory_[a-z_]+$")
WITHOUT_MILLISECONDS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)Z$")
INSTANT_LIKE = re.compile(r"^\d{4}-\d\d-\d\d")


class ReadsOneClaimLeniently(BindingMutant):
    """Base: the claim ``claim`` of a verified token is read through ``lenient`` (its value, or
    ``None`` when absent) before the reference checks the claims; ``lenient`` returns the value
    a server of this kind makes of it (``DROPPED``: none)."""

    claim: ClassVar[str]
    lenient: ClassVar[Callable[[Any], Any]]

    def _verified_claims(self, token: Any) -> dict[str, Any]:
        claims = super()._verified_claims(token)
        read = type(self).lenient(claims.get(self.claim))
        if read is DROPPED:
            claims.pop(self.claim, None)
        elif read is not None:
            claims[self.claim] = read
        return claims


def _digits(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.isdigit() else value


def _whole(value: Any) -> Any:
    return int(value) if isinstance(value, float) else value


def _with_milliseconds(value: Any) -> Any:
    found = WITHOUT_MILLISECONDS.match(value) if isinstance(value, str) else None
    return f"{found.group(1)}.000Z" if found else value


def _from_epoch_ms(value: Any) -> Any:
    return instant(value) if isinstance(value, int) else value


def _unreadable_dropped(value: Any) -> Any:
    unreadable = isinstance(value, str) and not INSTANT_LIKE.match(value)
    return DROPPED if unreadable else value


def _one_tool(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


def _strings_only(value: Any) -> Any:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else value


def _tool_names_only(value: Any) -> Any:
    if not isinstance(value, list):
        return value
    return [item for item in value if not isinstance(item, str) or TOOL_NAME.match(item)]


def _spelled(value: Any) -> Any:
    return str(value) if isinstance(value, int) else value


def _mutant(name: str, doc: str, base: type, **members: Any) -> type:
    return type(name, (base,), {"__doc__": doc, "__module__": __name__, **members})


def _lenient(name: str, doc: str, claim: str, read: Callable[[Any], Any]) -> type:
    return _mutant(name, doc, ReadsOneClaimLeniently, claim=claim, lenient=staticmethod(read))


def _camel(claim: str) -> str:
    return "".join(part.title() for part in claim.split("_"))


#: HOST-023: case of ``context_cases.malformed`` -> its mutant
MALFORMED: dict[str, type] = {
    "iat a string": _lenient(
        "IatStringRead", "Reads an iat sent as a string of digits.", "iat", _digits
    ),
    "iat with a fraction": _lenient(
        "IatFractionTruncated", "Truncates an iat with a fraction to whole seconds.", "iat", _whole
    ),
    "exp a string": _lenient(
        "ExpStringRead", "Reads an exp sent as a string of digits.", "exp", _digits
    ),
    "exp with a fraction": _lenient(
        "ExpFractionTruncated", "Truncates an exp with a fraction to whole seconds.", "exp", _whole
    ),
    "deadline without milliseconds": _lenient(
        "DeadlineWithoutMillisecondsRead",
        "Reads a deadline without milliseconds (``…T12:00:00Z``), and no other form.",
        "deadline",
        _with_milliseconds,
    ),
    "deadline in epoch milliseconds": _lenient(
        "DeadlineInEpochMillisecondsRead",
        "Reads an integer deadline as epoch milliseconds.",
        "deadline",
        _from_epoch_ms,
    ),
    "deadline not a time": _lenient(
        "UnreadableDeadlineIgnored",
        "Ignores a deadline that is no date at all (``in a minute``), and refuses other forms.",
        "deadline",
        _unreadable_dropped,
    ),
    "tools a string naming the tool": _lenient(
        "ToolsStringTakenAsOne",
        "Takes a tools claim that is one string for the list of that tool.",
        "tools",
        _one_tool,
    ),
    "tools with a number besides the tool": _lenient(
        "ToolsNonStringsSkipped",
        "Skips the items of the tools claim that are not strings.",
        "tools",
        _strings_only,
    ),
    "tools with a name of no tool's form besides the tool": _lenient(
        "ToolsOfNoToolsFormSkipped",
        "Skips the names in the tools claim that are of no tool's form.",
        "tools",
        _tool_names_only,
    ),
    "cancellation_ref a number": _lenient(
        "CancellationRefNumberSpelled",
        "Takes a cancellation_ref that is a number for its spelling.",
        "cancellation_ref",
        _spelled,
    ),
    **{
        f"{claim} empty": _lenient(
            f"Empty{_camel(claim)}Defaulted",
            f"Binds a default {claim} when the context's is empty.",
            claim,
            lambda value, claim=claim: f"default-{claim}" if value == "" else value,
        )
        for claim in STRING_CLAIMS
    },
    **{
        f"{claim} a number": _lenient(
            f"{_camel(claim)}NumberSpelled",
            f"Takes a {claim} that is a number for its spelling.",
            claim,
            _spelled,
        )
        for claim in STRING_CLAIMS
    },
}


class FillsAMissingClaim(ReadsOneClaimLeniently):
    """Base: a context without ``claim`` is bound with ``default`` (the claims it has)."""

    def _verified_claims(self, token: Any) -> dict[str, Any]:
        claims = super()._verified_claims(token)
        if self.claim not in claims:
            claims[self.claim] = self.default(claims)
        return claims

    def default(self, claims: dict[str, Any]) -> Any:
        return f"default-{self.claim}"


def _missing(claim: str, doc: str) -> type:
    name = f"Missing{_camel(claim)}Filled"
    return _mutant(name, doc, FillsAMissingClaim, claim=claim, lenient=staticmethod(lambda v: v))


class PurposeFromArguments(FillsAMissingClaim):
    """Binds the purpose the arguments name (or a default one) when the context has none."""

    claim = "purpose_ref"
    lenient = staticmethod(lambda value: value)
    _sent: str | None = None

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        known = tool in self.spec.tools
        self._sent = sent_purpose(self.spec, tool, arguments) if known else None
        return super().admit_call(tool, arguments, meta)

    def default(self, claims: dict[str, Any]) -> Any:
        return self._sent or "purpose:default"


class IatNow(FillsAMissingClaim):
    """Takes a context without iat as issued now."""

    claim = "iat"
    lenient = staticmethod(lambda value: value)

    def default(self, claims: dict[str, Any]) -> Any:
        return self._clock() // 1000


class ExpFromIat(FillsAMissingClaim):
    """Takes a context without exp to live 60 s from its iat."""

    claim = "exp"
    lenient = staticmethod(lambda value: value)

    def default(self, claims: dict[str, Any]) -> Any:
        return claims["iat"] + 60 if isinstance(claims.get("iat"), int) else None


#: HOST-004: case of ``context_cases.missing`` -> its mutant (``tool``: ``ToolClaimNotCompared``)
MISSING: dict[str, type] = {
    **{
        f"no {claim} claim": _missing(claim, f"Binds a default {claim} when the context has none.")
        for claim in ("tenant", "workspace", "principal", "agent_id", "session", "audit_id")
    },
    "no purpose_ref claim": PurposeFromArguments,
    "no iat claim": IatNow,
    "no exp claim": ExpFromIat,
}


class ComparesPurposesLoosely(BindingMutant):
    """Base: a purpose_ref argument ``alike`` the bound one passes for it."""

    def alike(self, sent: str, bound: str) -> bool:
        raise NotImplementedError

    def admit_call(self, tool: str, arguments: Any, meta: Any) -> InvocationContext:
        try:
            return super().admit_call(tool, arguments, meta)
        except ContextUnavailable as refusal:
            context, sent = self.context(meta), sent_purpose(self.spec, tool, arguments)
            if "purpose" not in refusal.reason or context is None or sent is None:
                raise
            if not self.alike(sent, context.purpose_ref):
                raise
            return context


class PurposeComparedIgnoringCase(ComparesPurposesLoosely):
    """Compares the purpose_ref argument with the bound purpose ignoring case."""

    def alike(self, sent: str, bound: str) -> bool:
        return sent.casefold() == bound.casefold()


class PurposeComparedTrimmed(ComparesPurposesLoosely):
    """Compares the purpose_ref argument with the bound purpose once both are trimmed."""

    def alike(self, sent: str, bound: str) -> bool:
        return sent.strip() == bound.strip()


MUTANTS: list[tuple[type, Caught]] = [
    *((m, Caught(("HOST-023",), about={"HOST-023": f", {case}"})) for case, m in MALFORMED.items()),
    # tools/list verifies a context as a call does (HOST-010): each also lists the tools there
    *(
        (m, Caught(("HOST-004", "HOST-010"), about={"HOST-004": f", {case}"}))
        for case, m in MISSING.items()
    ),
    (PurposeComparedIgnoringCase, Caught(("HOST-006",), about={"HOST-006": "PURPOSE:"})),
    (PurposeComparedTrimmed, Caught(("HOST-006",), about={"HOST-006": " ' while"})),
]
