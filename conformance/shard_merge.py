"""``engram-conformance merge``: the reports of a run's shards (``run --shard I/N``) as the one
report of the whole run.

Every rule belongs to exactly one shard (``sharding``), decided there by every check that
decides it in a single run, so the merged report takes each rule's record from its shard as
it is, and counts, exit code and summary are derived again from the whole. Shards of different
runs are refused: another kit, contract, spec, target, era, profile, seed, ``--only``, shard
count or plan; so are a missing shard, a shard given twice and a report that is no shard's.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from engram_conformance.reports import (
    CheckTiming,
    ReportDocument,
    RunInfo,
    RunTiming,
    ShardInfo,
    tally,
)

from .document import recounted, shard_note

#: What the shards of one run share, each named as a refusal says it.
_SAME_RUN: dict[str, Callable[[ReportDocument], Any]] = {
    "kit": lambda d: d.kit,
    "contract": lambda d: d.spec.contract,
    "spec": lambda d: (d.spec.contract_version, d.spec.spec_version, d.spec.digest),
    "target": lambda d: (d.target.name, d.target.transport, d.target.descriptor),
    "server": lambda d: d.target.server_info,
    "MCP era": lambda d: (
        d.target.protocol and (d.target.protocol.era_requested, d.target.protocol.era)
    ),
    "profile": lambda d: d.run.profile,
    "seed": lambda d: d.run.seed,
    "--only": lambda d: d.run.only,
    "shard count": lambda d: _shard(d).count,
    "plan of shards": lambda d: dict(_shard(d).plan),
}
#: The report's evidence files, in a shard's report folder and in its eras' sub-folders.
_EVIDENCE = ("transcripts", "reproductions", "*/transcripts", "*/reproductions")


class NotMergeable(Exception):
    """Reports that are not the shards of one run, all of them; the message says why."""


def _shard(document: ReportDocument) -> ShardInfo:
    assert document.run.shard is not None  # checked first, by merged
    return document.run.shard


def merged(reports: Sequence[tuple[str, ReportDocument]], command: str) -> ReportDocument:
    """One report of the shards' ``reports`` (each named, as its file, for the refusals),
    made by ``command``; NotMergeable unless they are every shard of one run, once each."""
    if not reports:
        raise NotMergeable("no report to merge")
    for name, document in reports:
        if document.run.shard is None:
            raise NotMergeable(f"{name} is not a shard's report (its run had no --shard)")
    first_name, first = reports[0]
    for name, document in reports[1:]:
        for what, of in _SAME_RUN.items():
            if of(document) != of(first):
                differs = _differ(what, of(first), of(document))
                raise NotMergeable(f"{name} is a shard of another run than {first_name}: {differs}")
    _check_each_once(
        [(name, _shard(document).index) for name, document in reports], _shard(first).count
    )
    by_id = {rule.id: rule for _, document in reports for rule in document.rules}
    rules = tuple(by_id[rule] for rule in _shard(first).plan)
    counts = tally(rule.verdict for rule in rules)
    summary = first.conformance.summary.replace(shard_note(_shard(first)), "", 1)
    return ReportDocument.from_rules(
        kit=first.kit,
        spec=first.spec,
        run=_merged_run([document.run for _, document in reports], command),
        target=first.target,
        conformance=replace(first.conformance, summary=recounted(summary, first.counts, counts)),
        rules=rules,
    )


def _differ(what: str, first: Any, other: Any) -> str:
    """How two shards' ``what`` differ, in a line of reasonable length."""
    if what in ("plan of shards", "server", "kit"):
        return f"another {what}"
    return f"{what} {_shown(other)}, not {_shown(first)}"


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return " ".join(str(part) for part in value if part is not None) or "none"
    return str(value)


def _check_each_once(indices: list[tuple[str, int]], count: int) -> None:
    """NotMergeable unless ``indices`` (report name, shard index) holds 1..``count`` once each."""
    seen: dict[int, str] = {}
    for name, index in indices:
        if index in seen:
            raise NotMergeable(f"shard {index} of {count} is given twice: {seen[index]} and {name}")
        seen[index] = name
    missing = [str(index) for index in range(1, count + 1) if index not in seen]
    if missing:
        raise NotMergeable(
            f"shard {', '.join(missing)} of {count} is missing: every shard's report is needed"
        )


def _merged_run(runs: list[RunInfo], command: str) -> RunInfo:
    """The shards' runs as one: the earliest start, their durations and timing added."""
    first = min(runs, key=lambda run: run.started_at)
    return replace(
        first,
        duration_s=round(sum(run.duration_s for run in runs), 3),
        command=command,
        timing=_merged_timing([run.timing for run in runs if run.timing is not None]),
        shard=None,
        merged_shards=len(runs),
    )


def _merged_timing(timings: list[RunTiming]) -> RunTiming | None:
    """The shards' timing added, each check's own (it ran in one shard), slowest first."""
    if not timings:
        return None
    checks: list[CheckTiming] = sorted(
        (check for timing in timings for check in timing.checks),
        key=lambda check: (-check.time_s, check.check),
    )
    return RunTiming(
        time_s=round(sum(timing.time_s for timing in timings), 3),
        calls=sum(timing.calls for timing in timings),
        waited_s=round(sum(timing.waited_s for timing in timings), 3),
        checks=tuple(checks),
    )


def copy_evidence(shard_folders: Sequence[Path], report_dir: Path) -> None:
    """Copy the transcripts and reproductions of each shard's report folder into
    ``report_dir``, under the same relative paths, which the merged report names (each check
    ran in one shard, so none is in two but the discovery's, alike in every shard)."""
    for folder in shard_folders:
        for pattern in _EVIDENCE:
            for evidence in folder.glob(pattern):
                for source in (path for path in evidence.rglob("*") if path.is_file()):
                    copy = report_dir / source.relative_to(folder)
                    if copy.exists() and copy.samefile(source):
                        continue
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, copy)
