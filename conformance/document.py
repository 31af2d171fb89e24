"""Turn a run's result into the report document (``reports.ReportDocument``, which every
renderer reads)."""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engram_conformance.reports import (
    CallRecord,
    ConformanceInfo,
    CutArguments,
    ErrorRecord,
    FailureRecord,
    Kit,
    ProtocolInfo,
    ReportDocument,
    RuleRecord,
    RunInfo,
    RunTiming,
    ServerInfo,
    ShardInfo,
    SpecIdentity,
    TargetInfo,
    Timing,
    Verdict,
    replace_file,
    tally,
)
from engram_conformance.reports import CheckTiming as ReportCheckTiming
from engram_conformance.spec.instants import instant

from . import contracts
from .baseline import Baseline
from .contracts import Contract
from .ledger import CheckTiming, Evidence, Failure
from .recheck import FLAKY
from .runner import RunOptions, RunResult
from .sharding import Shard
from .targets.json_text import infinities_named, json_text
from .targets.launch import Target

KIT_VERSION = version("engram-conformance")
CALLS_SHOWN = 20  # the last calls of a failure that the report shows
#: The longest arguments (their JSON text) a report shows whole; the transcript has them all.
SHOWN_ARGUMENT_BYTES = 2048
#: How much of the beginning and of the end of longer arguments a report shows.
ARGUMENT_END_CHARS = 256


def counted(counts: Mapping[Verdict, int]) -> str:
    """The counts of a summary line ("188 pass, 0 fail, ...")."""
    return ", ".join(f"{count} {verdict.label}" for verdict, count in counts.items())


def recounted(summary: str, was: Mapping[Verdict, int], now: Mapping[Verdict, int]) -> str:
    """A summary line (``conformance_line``'s) whose counts ``was`` are now ``now``."""
    return summary.replace(counted(was), counted(now), 1)


def shard_note(shard: ShardInfo) -> str:
    """What a shard's summary line adds: which part it is, and that the rest was not run."""
    judged = len(shard.plan) - len(shard.elsewhere())
    return (
        f" (shard {shard.index} of {shard.count}, {judged} of {len(shard.plan)} rules; "
        f"the other {len(shard.elsewhere())} belong to other shards, not run here)"
    )


def conformance_line(
    contract: Contract,
    spec: Any,
    listed: list[str],
    claimed: list[str],
    counts: Mapping[Verdict, int],
    discovery_failed: str | None = None,
) -> tuple[str, str]:
    """The conformance class (``none``, ``partial``, ``full``) and the summary line; the
    contract words a class by the tools offered (listed and claimed)."""
    tallied = counted(counts)
    if discovery_failed is not None:
        reason = discovery_failed.splitlines()[0][:200]
        return "none", f"No tools discovered: {reason} ({tallied})"
    if not [tool for tool in spec.tools if tool in listed]:
        nothing = contract.no_tools[:1].upper() + contract.no_tools[1:]
        return "none", f"{nothing} ({tallied})"
    offered = [tool for tool in spec.tools if tool in listed and tool in claimed]
    klass, words = contract.conformance_class(spec, offered)
    return klass, f"{words}: {tallied}"


def shard_info(shard: Shard) -> ShardInfo:
    """The report's account of a run's shard."""
    return ShardInfo(shard.index, shard.count, MappingProxyType(dict(shard.plan)))


def protocol_info(target: Target) -> ProtocolInfo | None:
    """The era ``target`` was asked for and the one its server agreed to (None: no connection
    was opened)."""
    agreed = target.negotiated
    if agreed is None:
        return None
    return ProtocolInfo(target.requested_era, agreed.era, agreed.protocol_version)


def build_document(
    spec: Any,
    result: RunResult,
    options: RunOptions,
    target: Target,
    *,
    descriptor: str | None,
    command: str,
    baseline: Baseline | None,
    transcript_paths: dict[str, str],
    reproductions: Mapping[tuple[str, str], str] | None = None,
    reproducing: Reproducing | None = None,
) -> ReportDocument:
    """The report document. A failure is reproduced by its pytest file when one was written
    (``reproductions``: (rule, check) -> path), else by replaying its check's transcript, each
    by a command that runs as printed where ``reproducing`` says."""
    rules = tuple(
        _rule_record(
            rule,
            result,
            baseline,
            transcript_paths,
            reproductions or {},
            reproducing or Reproducing(),
        )
        for rule in spec.rules.values()
        if rule.id in result.verdicts
    )
    contract = contracts.contract(result.contract)
    klass, line = conformance_line(
        contract,
        spec,
        result.tools_listed,
        result.tools_claimed,
        tally(rule.verdict for rule in rules),
        result.discovery_failed,
    )
    shard = None if options.shard is None else shard_info(options.shard)
    if options.only:  # the class speaks of the whole contract: say what part of it was judged
        judged = len(rules) if shard is None else len(shard.plan)  # of the run, in every shard
        line += f" (only {', '.join(options.only)}: {judged} of {len(spec.rules)} rules)"
    if shard is not None:
        line += shard_note(shard)
    identity = contract.identity(spec)
    info = result.server_info
    return ReportDocument.from_rules(
        kit=Kit(name="engram-conformance", version=KIT_VERSION),
        spec=SpecIdentity(
            contract=contract.name,
            contract_version=identity["contract_version"],
            spec_version=identity["spec_version"],
            digest=identity["digest"],
            rules_file=contract.rules_file,
        ),
        run=RunInfo(
            started_at=instant(result.started_at_ms),
            duration_s=round(result.duration_s, 3),
            seed=result.seed,
            profile=options.profile,
            budget_s=options.budget_s,
            only=tuple(options.only),
            command=command,
            timing=run_timing(result.ledger.timings),
            shard=shard,
        ),
        target=TargetInfo(
            name=target.name,
            transport=target.transport,
            descriptor=descriptor,
            server_info=None if info is None else ServerInfo(**info),
            stderr_tail=None,
            protocol=protocol_info(target),
        ),
        conformance=ConformanceInfo(
            conformance_class=klass,
            tools_claimed=tuple(result.tools_claimed),
            tools_listed=tuple(result.tools_listed),
            summary=line,
        ),
        rules=rules,
    )


def _rule_record(
    rule: Any,
    result: RunResult,
    baseline: Baseline | None,
    transcript_paths: dict[str, str],
    reproductions: Mapping[tuple[str, str], str],
    reproducing: Reproducing,
) -> RuleRecord:
    verdict = result.verdicts[rule.id]
    recheck = result.rechecked.outcomes.get(rule.id)
    evidence = result.ledger.evidence.get(rule.id)
    return RuleRecord(
        id=rule.id,
        family=rule.family,
        level=rule.level,
        statement=rule.statement,
        source=f"{rule.source_document} {rule.source_section}",
        verdict=verdict.verdict,
        checks=tuple(sorted(result.checks_of_rule.get(rule.id, []))),
        reason=verdict.reason,
        baseline=baseline.mark(rule.id, verdict.verdict) if baseline else None,
        flaky=recheck == FLAKY,
        failures=tuple(
            _failure_record(rule.id, failure, transcript_paths, reproductions, reproducing)
            for failure in (evidence.failures if evidence else [])
        ),
        recheck=recheck,
        recheck_transcript=transcript_paths.get(result.rechecked.passed_alone.get(rule.id, "")),
        timing=rule_timing(result.ledger.timings, result.checks_of_rule.get(rule.id, [])),
        error=_error_record(evidence, verdict.verdict, result, transcript_paths, reproducing),
    )


def _error_record(
    evidence: Evidence | None,
    verdict: Verdict,
    result: RunResult,
    transcript_paths: dict[str, str],
    reproducing: Reproducing,
) -> ErrorRecord | None:
    """What the check behind an ``error`` was doing when it stopped: the call under way (the
    first its server answered with a fault, else its last), its transcript and the command that
    sends its calls again; None when it made no call (a tool absent, no time left)."""
    check = evidence.error_check if evidence is not None else None
    calls = result.transcripts.get(check or "") if verdict == Verdict.ERROR else None
    if check is None or not calls:
        return None
    under_way = next((call for call in calls if "fault" in (call.get("answer") or {})), calls[-1])
    transcript = transcript_paths.get(check)
    return ErrorRecord(
        check=check,
        calls=(_call(under_way),),
        transcript=transcript,
        reproduce=reproducing.replay(transcript) if transcript else None,
    )


def run_timing(timings: Mapping[str, CheckTiming]) -> RunTiming | None:
    """The checks' timing summed, and each check's, slowest first (None: none measured)."""
    if not timings:
        return None
    checks = sorted(timings.items(), key=lambda item: (-item[1].seconds, item[0]))
    total = _summed(timings.values())
    return RunTiming(
        total.time_s,
        total.calls,
        total.waited_s,
        checks=tuple(
            ReportCheckTiming(check, _seconds(t.seconds), t.calls, _seconds(t.waited_s))
            for check, t in checks
        ),
    )


def rule_timing(timings: Mapping[str, CheckTiming], checks: Iterable[str]) -> Timing | None:
    """The summed timing of ``checks`` (a rule's deciders) that were measured, else None."""
    measured = [timings[check] for check in checks if check in timings]
    return _summed(measured) if measured else None


def _summed(timings: Iterable[CheckTiming]) -> Timing:
    timings = list(timings)
    return Timing(
        time_s=_seconds(sum(timing.seconds for timing in timings)),
        calls=sum(timing.calls for timing in timings),
        waited_s=_seconds(sum(timing.waited_s for timing in timings)),
    )


def _seconds(value: float) -> float:
    return round(value, 3)


@dataclass(frozen=True)
class Reproducing:
    """How a run's failures are reproduced as printed from the folder the run was made in: its
    report folder (None: paths stay relative to it) and the options that name its target again
    (empty: none can, as for a descriptor built in code)."""

    report_dir: Path | None = None
    target: tuple[str, ...] = ()

    def replay(self, transcript: str) -> str:
        return shlex.join(["engram-conformance", "replay", self._path(transcript), *self.target])

    def pytest(self, test_file: str) -> str:
        return shlex.join(["pytest", self._path(test_file)])

    def _path(self, relative: str) -> str:
        return relative if self.report_dir is None else str(self.report_dir / relative)


def _failure_record(
    rule_id: str,
    failure: Failure,
    transcript_paths: dict[str, str],
    reproductions: Mapping[tuple[str, str], str],
    reproducing: Reproducing,
) -> FailureRecord:
    transcript = transcript_paths.get(failure.during or failure.check)
    test_file = reproductions.get((rule_id, failure.check))
    again: str | None = None
    if test_file:
        again = reproducing.pytest(test_file)
    elif transcript:
        again = reproducing.replay(transcript)
    return FailureRecord(
        check=failure.check,
        expected=failure.expected,
        observed=failure.observed,
        seed=failure.seed,
        calls=tuple(_call(call) for call in failure.calls[-CALLS_SHOWN:]),
        transcript=transcript,
        reproduce=again,
    )


def _call(call: dict[str, Any]) -> CallRecord:
    """A call as the report shows it: JSON data, an infinite number as "Infinity" or
    "-Infinity" (the transcript keeps it a number); arguments too long to show as their digest,
    size and ends (``cut_arguments``)."""
    cut = cut_arguments(call.get("arguments"))
    return CallRecord(
        tool=call.get("tool") or call.get("method"),
        arguments=None if cut else infinities_named(call.get("arguments")),
        answer=infinities_named(call.get("answer")),
        arguments_cut=cut,
    )


def cut_arguments(arguments: Any) -> CutArguments | None:
    """The digest, size and ends of ``arguments`` whose JSON text (as the transcript writes
    it) is over ``SHOWN_ARGUMENT_BYTES``; None for shorter ones, shown whole. Calls at the
    bounds send megabytes, and every failure of a check shows its calls: written whole, they
    made most of a report."""
    text = json_text(arguments, default=str)
    if len(text) <= SHOWN_ARGUMENT_BYTES:
        return None
    return CutArguments(
        sha256=hashlib.sha256(text.encode("ascii")).hexdigest(),
        bytes=len(text),
        begins=text[:ARGUMENT_END_CHARS],
        ends=text[-ARGUMENT_END_CHARS:],
    )


def write_transcripts(result: RunResult, report_dir: Path) -> dict[str, str]:
    """One JSON-lines transcript per check that failed or faulted; check -> relative path.
    Lines are ``json_text``: arguments with lone surrogates or infinite numbers read back."""
    folder = report_dir / "transcripts"
    paths = {}
    for check, calls in result.transcripts.items():
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{check}.jsonl"
        lines = [json_text(call, default=str) for call in calls]
        replace_file(path, "\n".join(lines) + "\n")
        paths[check] = f"transcripts/{check}.jsonl"
    return paths
