"""The report document: typed, immutable views of report.json, and the loader that validates it.

The JSON document is the source of truth of a run; every renderer reads only these views. Each
view mirrors one object of report.schema.json field for field (``ConformanceInfo.conformance_class``
is the JSON ``class``). Tool arguments and answers stay the JSON values they were; treat them as
read-only.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from ._schema import SCHEMA_ID, InvalidReport, check_schema, parse

Level = Literal["must", "should", "profile"]
Profile = Literal["quick", "full"]
Transport = Literal["stdio", "http", "inprocess"]
ConformanceClass = Literal["full", "partial", "none"]
BaselineStatus = Literal["known_failure", "stale"]

_SURROGATE = re.compile("[\ud800-\udfff]")


class Verdict(StrEnum):
    """A rule's verdict, declared from best to worst: pass, not_applicable, warn, fail, error."""

    PASS = "pass"  # noqa: S105 (a verdict, not a password)
    NOT_APPLICABLE = "not_applicable"
    WARN = "warn"
    FAIL = "fail"
    ERROR = "error"

    @property
    def severity(self) -> int:
        """The verdict's rank: 0 for pass up to 4 for error."""
        return list(Verdict).index(self)

    @property
    def label(self) -> str:
        """The verdict as prose ("not applicable")."""
        return self.value.replace("_", " ")


def worst(verdicts: Iterable[Verdict], default: Verdict = Verdict.PASS) -> Verdict:
    """The most severe of ``verdicts`` (``default`` when there are none)."""
    return max(verdicts, key=lambda verdict: verdict.severity, default=default)


#: The order in which the report's counts (and summaries) list the verdicts.
COUNTED_ORDER = (Verdict.PASS, Verdict.FAIL, Verdict.WARN, Verdict.NOT_APPLICABLE, Verdict.ERROR)


def tally(verdicts: Iterable[Verdict | str]) -> Mapping[Verdict, int]:
    """How many of ``verdicts`` are each verdict: every verdict, in ``COUNTED_ORDER``."""
    counted = Counter(Verdict(verdict) for verdict in verdicts)
    return MappingProxyType({verdict: counted[verdict] for verdict in COUNTED_ORDER})


#: Field metadata of an optional member of the JSON document: left out, not null, when None.
OPTIONAL = {"optional": True}


@dataclass(frozen=True)
class Kit:
    name: str
    version: str


@dataclass(frozen=True)
class SpecIdentity:
    #: the contract the run tested (``engram-memory``, ...)
    contract: str
    contract_version: str
    spec_version: str
    digest: str
    #: the contract's rules as a path of the kit's repository (``spec/<contract>/rules.json``):
    #: where SARIF results point when the run named no descriptor file (None: the kit's
    #: layout, ``spec/<contract>/rules.json``)
    rules_file: str | None = field(default=None, metadata=OPTIONAL)


@dataclass(frozen=True)
class Timing:
    """Wall time, calls made, and time spent waiting (see the schema's Timing)."""

    time_s: float
    calls: int
    waited_s: float


@dataclass(frozen=True)
class CheckTiming:
    check: str
    time_s: float
    calls: int
    waited_s: float


@dataclass(frozen=True)
class RunTiming:
    """The checks' time, calls and waits summed, and each check's own, slowest first."""

    time_s: float
    calls: int
    waited_s: float
    checks: tuple[CheckTiming, ...]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunTiming:
        checks = tuple(CheckTiming(**check) for check in data["checks"])
        return cls(**{**data, "checks": checks})


@dataclass(frozen=True)
class ShardInfo:
    """The part of a sharded run a report holds (``run --shard I/N``), and the plan of the
    whole run: every rule, in the spec's order, -> the shard it belongs to."""

    index: int
    count: int
    plan: Mapping[str, int]

    def elsewhere(self) -> tuple[str, ...]:
        """The rules of the run that belong to other shards: not run here."""
        return tuple(rule for rule, index in self.plan.items() if index != self.index)


@dataclass(frozen=True)
class RunInfo:
    started_at: str
    duration_s: float
    seed: int
    profile: Profile
    budget_s: float | None
    only: tuple[str, ...]
    command: str
    timing: RunTiming | None = field(default=None, metadata=OPTIONAL)
    #: a shard's report: which part of the run it holds
    shard: ShardInfo | None = field(default=None, metadata=OPTIONAL)
    #: a merged report: how many shards' reports it was made of
    merged_shards: int | None = field(default=None, metadata=OPTIONAL)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunInfo:
        timing, shard = data.get("timing"), data.get("shard")
        return cls(
            **{
                **data,
                "only": tuple(data["only"]),
                "timing": None if timing is None else RunTiming.from_dict(timing),
                "shard": None
                if shard is None
                else ShardInfo(**{**shard, "plan": MappingProxyType(dict(shard["plan"]))}),
            }
        )


@dataclass(frozen=True)
class ServerInfo:
    name: str
    version: str
    protocol_version: str


@dataclass(frozen=True)
class ProtocolInfo:
    """The MCP protocol era the run asked for (``auto`` or an era) and the one it spoke, with
    the version the server agreed to."""

    era_requested: str
    era: str
    protocol_version: str
    #: with ``both``: the eras the server would not speak, and what it said
    not_spoken: Mapping[str, str] | None = field(default=None, metadata=OPTIONAL)


@dataclass(frozen=True)
class TargetInfo:
    name: str
    transport: Transport
    descriptor: str | None
    server_info: ServerInfo | None
    stderr_tail: str | None
    #: None in a report of a run that opened no connection, or of a kit before eras
    protocol: ProtocolInfo | None = field(default=None, metadata=OPTIONAL)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TargetInfo:
        info, protocol = data["server_info"], data.get("protocol")
        return cls(
            **{
                **data,
                "server_info": None if info is None else ServerInfo(**info),
                "protocol": None if protocol is None else ProtocolInfo(**protocol),
            }
        )


@dataclass(frozen=True)
class ConformanceInfo:
    conformance_class: ConformanceClass = field(metadata={"json": "class"})
    tools_claimed: tuple[str, ...]
    tools_listed: tuple[str, ...]
    summary: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConformanceInfo:
        return cls(
            conformance_class=data["class"],
            tools_claimed=tuple(data["tools_claimed"]),
            tools_listed=tuple(data["tools_listed"]),
            summary=data["summary"],
        )


@dataclass(frozen=True)
class CutArguments:
    """Arguments too long to show in a report: their size, their SHA-256 and their first and
    last characters, all of their JSON text as the transcript writes it, which holds them
    whole."""

    sha256: str
    bytes: int
    begins: str
    ends: str


@dataclass(frozen=True)
class CallRecord:
    tool: str
    #: the arguments as sent, or None when they were cut (``arguments_cut``)
    arguments: Any
    answer: Any
    arguments_cut: CutArguments | None = field(default=None, metadata=OPTIONAL)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CallRecord:
        cut = data.get("arguments_cut")
        return cls(**{**data, "arguments_cut": None if cut is None else CutArguments(**cut)})


@dataclass(frozen=True)
class FailureRecord:
    check: str
    expected: str
    observed: str
    seed: int | None
    calls: tuple[CallRecord, ...]
    transcript: str | None
    reproduce: str | None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FailureRecord:
        calls = tuple(CallRecord.from_dict(call) for call in data["calls"])
        return cls(**{**data, "calls": calls})

    def call_lines(self) -> tuple[str, ...]:
        """Each call as one line of JSON, for display."""
        return call_lines(self.calls)


@dataclass(frozen=True)
class ErrorRecord:
    """What the check that could not decide a rule (the ``error`` verdict's reason) was doing:
    the call under way when it stopped, as sent, with what came back instead of an answer; the
    transcript of its calls and the command that sends them again."""

    check: str
    calls: tuple[CallRecord, ...]
    transcript: str | None
    reproduce: str | None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ErrorRecord:
        return cls(**{**data, "calls": tuple(CallRecord.from_dict(c) for c in data["calls"])})

    def call_lines(self) -> tuple[str, ...]:
        """Each call as one line of JSON, for display."""
        return call_lines(self.calls)


def call_lines(calls: Iterable[CallRecord]) -> tuple[str, ...]:
    """Each call as one line of JSON, for display."""
    return tuple(json.dumps(_json_value(call), ensure_ascii=False) for call in calls)


@dataclass(frozen=True)
class RuleRecord:
    id: str
    family: str
    level: Level
    statement: str
    source: str
    verdict: Verdict
    checks: tuple[str, ...]
    reason: str | None
    baseline: BaselineStatus | None
    flaky: bool
    failures: tuple[FailureRecord, ...]
    #: what checking the failure again alone found: confirmed, flaky, or None (not re-checked)
    recheck: str | None = None
    #: the transcript of the re-check that passed, for a flaky rule
    recheck_transcript: str | None = None
    #: the time of the checks that decided the rule (None: not measured)
    timing: Timing | None = field(default=None, metadata=OPTIONAL)
    #: with ``--era both``: each era's verdict (the rule's own is the worst of them)
    eras: Mapping[str, str] | None = field(default=None, metadata=OPTIONAL)
    #: for an ``error``: what its check was doing when it stopped (None: it made no call)
    error: ErrorRecord | None = field(default=None, metadata=OPTIONAL)

    @property
    def era_finding(self) -> bool:
        """Whether the eras gave this rule different verdicts: the server keeps it in one
        era and breaks it in the other."""
        return len(set((self.eras or {}).values())) > 1

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleRecord:
        timing, error = data.get("timing"), data.get("error")
        return cls(
            **{
                **data,
                "verdict": Verdict(data["verdict"]),
                "checks": tuple(data["checks"]),
                "failures": tuple(FailureRecord.from_dict(f) for f in data["failures"]),
                "timing": None if timing is None else Timing(**timing),
                "error": None if error is None else ErrorRecord.from_dict(error),
            }
        )

    @property
    def fails_gate(self) -> bool:
        """Whether this rule makes the run fail (exit code 1), the one reading of the gate: a
        failure that is not flaky, or an ``error`` on a must rule, unless the baseline knows it;
        or a stale baseline entry.

        A must rule the harness could not decide fails the gate so that a server that crashes
        on every check cannot pass by producing no ``fail``; a flaky failure (it passed when
        checked again alone) does not, and is reported with both transcripts.
        """
        if self.baseline == "stale":
            return True
        broken = (self.verdict == Verdict.FAIL and not self.flaky) or (
            self.verdict == Verdict.ERROR and self.level == "must"
        )
        return broken and self.baseline != "known_failure"


@dataclass(frozen=True)
class ReportDocument:
    """One run's report. Build it from data with ``from_dict`` (validated) or field by field."""

    kit: Kit
    spec: SpecIdentity
    run: RunInfo
    target: TargetInfo
    conformance: ConformanceInfo
    exit_code: Literal[0, 1, 2]
    counts: Mapping[Verdict, int]
    rules: tuple[RuleRecord, ...]

    @classmethod
    def from_dict(cls, data: Any) -> ReportDocument:
        """The document that ``data`` (parsed JSON) describes; raises InvalidReport if invalid."""
        check_schema(data)
        document = cls.unchecked(data)
        _check_consistency(document)
        return document

    @classmethod
    def from_rules(
        cls,
        *,
        kit: Kit,
        spec: SpecIdentity,
        run: RunInfo,
        target: TargetInfo,
        conformance: ConformanceInfo,
        rules: tuple[RuleRecord, ...],
    ) -> ReportDocument:
        """The document of a run that was made, its counts and exit code derived from its
        rules: exit code 1 when a rule fails the gate (``RuleRecord.fails_gate``) or the server
        offers none of the contract's tools (class ``none``), else 0."""
        broken = conformance.conformance_class == "none" or any(r.fails_gate for r in rules)
        return cls(
            kit=kit,
            spec=spec,
            run=run,
            target=target,
            conformance=conformance,
            exit_code=1 if broken else 0,
            counts=tally(rule.verdict for rule in rules),
            rules=rules,
        )

    @classmethod
    def unchecked(cls, data: Any) -> ReportDocument:
        """The views of ``data`` without validating it, to render what can be rendered of a
        document that breaks its schema (a bug of the kit): any exception may come of data
        that lacks what a view needs, and a renderer may fail on what it holds."""
        return cls(
            kit=Kit(**data["kit"]),
            spec=SpecIdentity(**data["spec"]),
            run=RunInfo.from_dict(data["run"]),
            target=TargetInfo.from_dict(data["target"]),
            conformance=ConformanceInfo.from_dict(data["conformance"]),
            exit_code=data["exit_code"],
            counts=MappingProxyType({v: data["counts"][v] for v in COUNTED_ORDER}),
            rules=tuple(RuleRecord.from_dict(rule) for rule in data["rules"]),
        )

    def to_dict(self) -> dict[str, Any]:
        """The document as JSON data (what report.json holds)."""
        return {"$schema": SCHEMA_ID, **_json_value(self)}

    def to_json(self) -> str:
        """The document as pretty JSON text, which ``load`` reads back equal.

        Non-ASCII text is written as is; lone surrogates (which a server may send as escapes)
        are written as escapes again, since UTF-8 cannot encode them.
        """
        return pretty_json(self.to_dict())

    def problems(self) -> dict[str, tuple[RuleRecord, ...]]:
        """The rules a reader needs first, under the titles renderers give them, in this order:
        failures (new before known), errors, stale baseline entries, warnings."""
        failures = [rule for rule in self.rules if rule.verdict == Verdict.FAIL]
        failures.sort(key=lambda rule: rule.baseline == "known_failure")
        return {
            "Failures": tuple(failures),
            "Errors": tuple(rule for rule in self.rules if rule.verdict == Verdict.ERROR),
            "Stale baseline entries": tuple(r for r in self.rules if r.baseline == "stale"),
            "Warnings": tuple(rule for rule in self.rules if rule.verdict == Verdict.WARN),
        }

    def by_family(self) -> dict[str, tuple[RuleRecord, ...]]:
        """The rules grouped by family, families and rules in document order."""
        families: dict[str, list[RuleRecord]] = {}
        for rule in self.rules:
            families.setdefault(rule.family, []).append(rule)
        return {family: tuple(rules) for family, rules in families.items()}


def _json_value(value: Any) -> Any:
    if is_dataclass(value):
        return {
            f.metadata.get("json", f.name): _json_value(getattr(value, f.name))
            for f in fields(value)
            if not (f.metadata.get("optional") and getattr(value, f.name) is None)
        }
    if isinstance(value, Verdict):
        return value.value
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): _json_value(item) for key, item in value.items()}
    return value


def _check_consistency(document: ReportDocument) -> None:
    """What the schema cannot say: a real start time, unique ids, true counts, an honest exit."""
    try:
        datetime.fromisoformat(document.run.started_at)
    except ValueError as error:
        raise InvalidReport("/run/started_at", f"not a real instant: {error}") from error
    first_index: dict[str, int] = {}
    for index, rule in enumerate(document.rules):
        if rule.id.split("-")[0] != rule.family:
            problem = f"family {rule.family!r} is not the prefix of rule id {rule.id!r}"
            raise InvalidReport(f"/rules/{index}/family", problem)
        if rule.id in first_index:
            problem = f"duplicate rule id {rule.id!r} (first at /rules/{first_index[rule.id]})"
            raise InvalidReport(f"/rules/{index}/id", problem)
        first_index[rule.id] = index
    _check_shard(document)
    actual = tally(rule.verdict for rule in document.rules)
    for verdict in COUNTED_ORDER:
        if document.counts[verdict] != actual[verdict]:
            problem = f"says {document.counts[verdict]} but {actual[verdict]} rules are {verdict}"
            raise InvalidReport(f"/counts/{verdict}", problem)
    gate = next((rule for rule in document.rules if rule.fails_gate), None)
    if document.exit_code == 0 and gate is not None:
        if gate.baseline == "stale":
            why = "is a stale baseline entry"
        elif gate.verdict == Verdict.ERROR:
            why = "is an error on a must rule (not in the baseline)"
        else:
            why = "fails (not in the baseline)"
        raise InvalidReport("/exit_code", f"is 0 but rule {gate.id} {why}")


def _check_shard(document: ReportDocument) -> None:
    """A shard's report holds the rules its plan gives it, and no others."""
    shard = document.run.shard
    if shard is None:
        return
    if shard.index > shard.count or any(not 1 <= i <= shard.count for i in shard.plan.values()):
        raise InvalidReport("/run/shard", f"names a shard beyond its count, {shard.count}")
    own = {rule for rule, index in shard.plan.items() if index == shard.index}
    held = {rule.id for rule in document.rules}
    if held != own:
        strays = ", ".join(sorted(held ^ own)[:5])
        raise InvalidReport("/rules", f"are not the rules the shard's plan gives it ({strays})")


def pretty_json(data: Any, default: Callable[[Any], Any] | None = None) -> str:
    """``data`` as the pretty JSON text of report.json: non-ASCII text as is, a lone surrogate
    as its escape again (UTF-8 cannot encode one); ``default`` as for ``json.dumps``."""
    text = json.dumps(data, ensure_ascii=False, indent=2, default=default) + "\n"
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def validate(data: Any) -> None:
    """Raise InvalidReport unless ``data`` (parsed JSON) is a valid report document."""
    ReportDocument.from_dict(data)


def load(source: str | os.PathLike[str]) -> ReportDocument:
    """The report in ``source``: JSON text if a ``str``, else the path of a report.json.

    Raises InvalidReport (with the file, when there is one) for anything but a valid document.
    """
    if isinstance(source, str):
        return ReportDocument.from_dict(parse(source))
    path = Path(source)
    try:
        return ReportDocument.from_dict(parse(path.read_text(encoding="utf-8")))
    except UnicodeDecodeError as error:
        raise InvalidReport("", f"not UTF-8: {error}", str(path)) from error
    except InvalidReport as error:
        raise error.with_source(str(path)) from error
