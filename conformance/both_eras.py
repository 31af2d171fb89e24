"""``--era both``: every check once in each MCP era the server speaks, and one report of both.

Each era is a run of its own (``run_one``), against a server started fresh, with the same
seed, its transcripts and reproductions in the report folder's ``<era>/`` sub-folder, where its
own reports are written too. The report of both takes each rule's worst verdict and, beside
it, the verdict of each era (``RuleRecord.eras``); a rule whose eras differ is an era finding
(``RuleRecord.era_finding``), which the renderers show first. The failures shown are those of
the era that decided the verdict. An era the server refuses to speak (it answers the opening
request with -32022, or agrees to the other era only) is left out and said so
(``ProtocolInfo.not_spoken``); a server that speaks neither cannot be run.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from engram_conformance.reports import (
    ProtocolInfo,
    ReportDocument,
    RuleRecord,
    RunInfo,
    tally,
    worst,
    write_reports_as_built,
)

from .document import recounted
from .exceptions import EraNotSpoken, StartupFailed
from .request import PreparedRun, RunRequest
from .targets.eras import BOTH, ERAS

RunOne = Callable[[PreparedRun | RunRequest, Path], ReportDocument]


def run_each_era(
    request: PreparedRun | RunRequest, report_dir: Path, run_one: RunOne
) -> ReportDocument:
    """The report of ``request`` run in each era (``run_one(request, folder)`` runs one);
    StartupFailed when the server speaks neither, or fails to start for another reason."""
    seed = _seed_of(request)
    documents: dict[str, ReportDocument] = {}
    not_spoken: dict[str, str] = {}
    for era in ERAS:
        folder = report_dir / era
        try:
            document = run_one(_in_era(request, era, seed), folder)
        except EraNotSpoken as refused:
            not_spoken[era] = refused.problem
            continue
        write_reports_as_built(document, folder)
        documents[era] = document
    if not documents:
        problems = "; ".join(f"{era}: {problem}" for era, problem in not_spoken.items())
        raise StartupFailed(f"the server speaks neither MCP era ({problems})")
    return merged(documents, not_spoken)


def _seed_of(request: PreparedRun | RunRequest) -> int:
    """The seed both eras share (so that they send the same generated data): the one asked
    for, else a random one."""
    asked = request.options.seed if isinstance(request, PreparedRun) else request.seed
    return asked if asked is not None else secrets.randbelow(2**32)


def _in_era(request: PreparedRun | RunRequest, era: str, seed: int) -> PreparedRun | RunRequest:
    if isinstance(request, PreparedRun):
        descriptor = replace(request.descriptor, era=era)
        return replace(request, descriptor=descriptor, options=replace(request.options, seed=seed))
    return replace(request, era=era, seed=seed)


def merged(documents: dict[str, ReportDocument], not_spoken: dict[str, str]) -> ReportDocument:
    """One report of the eras' ``documents`` (at least one; era -> its report)."""
    eras = list(documents)
    last = documents[eras[-1]]
    by_id = {era: {rule.id: rule for rule in documents[era].rules} for era in eras}
    rules = tuple(
        _merged_rule({era: by_id[era][rule.id] for era in eras if rule.id in by_id[era]})
        for rule in last.rules
    )
    counts = tally(rule.verdict for rule in rules)
    summary = recounted(last.conformance.summary, last.counts, counts)
    versions = {era: documents[era].target.protocol for era in eras}
    protocol = ProtocolInfo(
        era_requested=BOTH,
        era=BOTH if len(eras) > 1 else eras[0],
        protocol_version=", ".join(p.protocol_version for p in versions.values() if p),
        not_spoken=not_spoken or None,
    )
    return ReportDocument.from_rules(
        kit=last.kit,
        spec=last.spec,
        run=_merged_run([documents[era].run for era in eras]),
        target=replace(last.target, protocol=protocol),
        conformance=replace(last.conformance, summary=summary),
        rules=rules,
    )


def _merged_rule(by_era: dict[str, RuleRecord]) -> RuleRecord:
    """A rule's record over the eras: the worst era's, its paths under that era's folder, and
    each era's verdict beside it."""
    verdicts = {era: record.verdict for era, record in by_era.items()}
    deciding = worst(verdicts.values())
    era = next(era for era, verdict in verdicts.items() if verdict == deciding)
    record = by_era[era]
    failures = tuple(
        replace(failure, transcript=_under(era, failure.transcript)) for failure in record.failures
    )
    return replace(
        record,
        failures=failures,
        recheck_transcript=_under(era, record.recheck_transcript),
        error=None
        if record.error is None
        else replace(record.error, transcript=_under(era, record.error.transcript)),
        eras={era: verdict.value for era, verdict in verdicts.items()},
    )


def _under(era: str, path: str | None) -> str | None:
    """A path relative to an era's report folder, made relative to the report of both."""
    return None if path is None else f"{era}/{path}"


def _merged_run(runs: list[RunInfo]) -> RunInfo:
    """The runs of the eras as one: the first's start, options and command, their durations
    added; no timing (each era's report has its own)."""
    first = runs[0]
    return replace(first, duration_s=round(sum(run.duration_s for run in runs), 3), timing=None)
