"""Turn a run's result into the report document (the JSON that every renderer reads)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from importlib.metadata import version
from pathlib import Path
from typing import Any

from engram_conformance.spec.engram_memory import Spec, instant

from .baseline import Baseline, gate_fails
from .recheck import FLAKY
from .runner import RunOptions, RunResult
from .targets.json_text import infinities_named, json_text
from .targets.launch import Target

KIT_VERSION = version("engram-conformance")
VERDICTS = ("pass", "fail", "warn", "not_applicable", "error")


def conformance_line(
    spec: Spec,
    listed: list[str],
    claimed: list[str],
    counts: Counter,
    discovery_failed: str | None = None,
) -> tuple[str, str]:
    six = list(spec.tools)
    offered = [tool for tool in six if tool in listed and tool in claimed]
    tally = ", ".join(f"{counts[v]} {v.replace('_', ' ')}" for v in VERDICTS)
    if discovery_failed is not None:
        reason = discovery_failed.splitlines()[0][:200]
        return "none", f"No tools discovered: {reason} ({tally})"
    if not [tool for tool in six if tool in listed]:
        return (
            "none",
            f"No Engram memory tools discovered: the server lists none of the six tools ({tally})",
        )
    if len(offered) == len(six):
        return "full", f"Full conformance class (all six tools): {tally}"
    names = ", ".join(tool.removeprefix("engram_memory_") for tool in offered)
    return "partial", f"Partial conformance class ({names}): {tally}"


def build_document(
    spec: Spec,
    result: RunResult,
    options: RunOptions,
    target: Target,
    *,
    descriptor: str | None,
    command: str,
    baseline: Baseline | None,
    transcript_paths: dict[str, str],
    reproductions: Mapping[tuple[str, str], str] | None = None,
) -> dict[str, Any]:
    """The report document. A failure is reproduced by its pytest file when one was written
    (``reproductions``: (rule, check) -> path), else by replaying its check's transcript."""
    rules = []
    counts: Counter = Counter()
    gate_failed = False
    for rule in spec.rules.values():
        if rule.id not in result.verdicts:
            continue
        verdict = result.verdicts[rule.id]
        counts[verdict.verdict] += 1
        mark = baseline.mark(rule.id, verdict.verdict) if baseline else None
        recheck = result.rechecked.outcomes.get(rule.id)
        flaky = recheck == FLAKY
        gate_failed |= gate_fails(verdict.verdict, rule.level, mark, flaky=flaky)
        evidence = result.ledger.evidence.get(rule.id)
        failures = []
        for failure in evidence.failures if evidence else []:
            transcript = transcript_paths.get(failure.during or failure.check)
            test_file = (reproductions or {}).get((rule.id, failure.check))
            if test_file:
                again: str | None = f"pytest {test_file}"
            else:
                again = f"engram-conformance replay {transcript}" if transcript else None
            failures.append(
                {
                    "check": failure.check,
                    "expected": failure.expected,
                    "observed": failure.observed,
                    "seed": failure.seed,
                    "calls": [_call(c) for c in failure.calls][-20:],
                    "transcript": transcript,
                    "reproduce": again,
                }
            )
        rules.append(
            {
                "id": rule.id,
                "family": rule.family,
                "level": rule.level,
                "statement": rule.statement,
                "source": f"{rule.source_document} {rule.source_section}",
                "verdict": verdict.verdict,
                "checks": sorted(result.checks_of_rule.get(rule.id, [])),
                "reason": verdict.reason,
                "baseline": mark,
                "flaky": flaky,
                "failures": failures,
                "recheck": recheck,
                "recheck_transcript": transcript_paths.get(
                    result.rechecked.passed_alone.get(rule.id, "")
                ),
            }
        )
    klass, line = conformance_line(
        spec, result.tools_listed, result.tools_claimed, counts, result.discovery_failed
    )
    exit_code = 1 if gate_failed or klass == "none" else 0
    identity = spec.contract["identity"]
    return {
        "$schema": "urn:engram-conformance:report:v1",
        "kit": {"name": "engram-conformance", "version": KIT_VERSION},
        "spec": {
            "contract_version": identity["contract_version"],
            "spec_version": identity["spec_version"],
            "digest": spec_digest(spec),
        },
        "run": {
            "started_at": instant(result.started_at_ms),
            "duration_s": round(result.duration_s, 3),
            "seed": result.seed,
            "profile": options.profile,
            "budget_s": options.budget_s,
            "only": list(options.only),
            "command": command,
        },
        "target": {
            "name": target.name,
            "transport": target.transport,
            "descriptor": descriptor,
            "server_info": result.server_info,
            "stderr_tail": None,
        },
        "conformance": {
            "class": klass,
            "tools_claimed": result.tools_claimed,
            "tools_listed": result.tools_listed,
            "summary": line,
        },
        "exit_code": exit_code,
        "counts": {verdict: counts[verdict] for verdict in VERDICTS},
        "rules": rules,
    }


def spec_digest(spec: Spec) -> str:
    """A digest of every spec file's bytes, in path order: which spec this run used."""
    hasher = hashlib.sha256()
    for relative in sorted(spec.documents.by_path):
        hasher.update(relative.encode() + b"\0" + (spec.documents.root / relative).read_bytes())
    return "sha256:" + hasher.hexdigest()


def _call(call: dict[str, Any]) -> dict[str, Any]:
    """A call as the report shows it: JSON data, an infinite number as "Infinity" or
    "-Infinity" (the transcript keeps it a number)."""
    return {
        "tool": call.get("tool") or call.get("method"),
        "arguments": infinities_named(call.get("arguments")),
        "answer": infinities_named(call.get("answer")),
    }


def write_transcripts(result: RunResult, report_dir: Path) -> dict[str, str]:
    """One JSON-lines transcript per check that failed or faulted; check -> relative path.
    Lines are ``json_text``: arguments with lone surrogates or infinite numbers read back."""
    folder = report_dir / "transcripts"
    paths = {}
    for check, calls in result.transcripts.items():
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{check}.jsonl"
        lines = [json_text(call, default=str) for call in calls]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[check] = f"transcripts/{check}.jsonl"
    return paths
