"""Report documents for the tests: one small hand-written document, and a Hypothesis strategy
of valid documents whose every free string may be hostile (markup, control characters, lone
surrogates, bidirectional overrides)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from engram_conformance.reports import Verdict, tally
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

#: Deterministic and modest: these are renderers, not a search for rare inputs.
SETTINGS = settings(
    max_examples=30,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.data_too_large],
)

NASTY = (
    "<script>alert(1)</script>",
    "]]>",
    "\x00",
    "\x1b[31m",
    "\x0c",
    "\ud800",  # a lone high surrogate; never followed by a low one, which JSON would pair
    "\ufffe",
    "\u202e",
    "\U0001f600",
    "&amp;",
    "```",
    "|",
    "\r\n",
    "<!--",
    "</details>",
    "*_[x](javascript:alert(1))",
    '\\"',
    "# ",
    "ñ 日本語",
)

SMALL: dict[str, Any] = {
    "$schema": "urn:engram-conformance:report:v1",
    "kit": {"name": "engram-conformance", "version": "0.1.0"},
    "spec": {
        "contract": "engram-memory",
        "contract_version": "1.0.0",
        "spec_version": "1.0.0",
        "digest": "sha256:" + "ab" * 32,
    },
    "run": {
        "started_at": "2026-11-29T12:00:00.123Z",
        "duration_s": 12.3,
        "seed": 123,
        "profile": "quick",
        "budget_s": 60,
        "only": [],
        "command": "engram-conformance run --reference",
        "timing": {
            "time_s": 9.5,
            "calls": 120,
            "waited_s": 2.25,
            "checks": [
                {
                    "check": "capture_replay_precedes_clock_checks",
                    "time_s": 2.4,
                    "calls": 3,
                    "waited_s": 2.25,
                },
                {"check": "envelope_has_contract_shape", "time_s": 0.5, "calls": 7, "waited_s": 0},
            ],
        },
    },
    "target": {
        "name": "reference",
        "transport": "stdio",
        "descriptor": "targets/reference.toml",
        "server_info": {
            "name": "engram-reference",
            "version": "0.1.0",
            "protocol_version": "2025-06-18",
        },
        "stderr_tail": None,
    },
    "conformance": {
        "class": "full",
        "tools_claimed": ["engram_memory_search", "engram_memory_get"],
        "tools_listed": ["engram_memory_search", "engram_memory_get"],
        "summary": "Full conformance class (all six tools): "
        "2 pass, 1 fail, 1 warn, 1 not applicable, 1 error",
    },
    "exit_code": 1,
    "counts": {"pass": 2, "fail": 1, "warn": 1, "not_applicable": 1, "error": 1},
    "rules": [
        {
            "id": "ENV-001",
            "family": "ENV",
            "level": "must",
            "statement": "A successful call answers the envelope {ok: true, output, auditId}.",
            "source": "seed §2 Las seis herramientas",
            "verdict": "pass",
            "checks": ["envelope_has_contract_shape"],
            "reason": None,
            "baseline": None,
            "flaky": False,
            "recheck": None,
            "recheck_transcript": None,
            "failures": [],
        },
        {
            "id": "ENV-002",
            "family": "ENV",
            "level": "must",
            "statement": "A failed call answers the envelope {ok: false, auditId, error}.",
            "source": "seed §2 Las seis herramientas",
            "verdict": "fail",
            "checks": ["envelope_has_contract_shape"],
            "reason": None,
            "baseline": None,
            "flaky": False,
            "recheck": None,
            "recheck_transcript": None,
            "failures": [
                {
                    "check": "envelope_has_contract_shape",
                    "expected": "ok is false and error has code, message, retriable",
                    "observed": '{"ok": false, "error": "<script>alert(1)</script>"}',
                    "seed": 123,
                    "calls": [
                        {
                            "tool": "engram_memory_get",
                            "arguments": {"id": "mem_x"},
                            "answer": {"ok": False, "error": "<script>alert(1)</script>"},
                        }
                    ],
                    "transcript": "transcripts/ENV-002-envelope_has_contract_shape.jsonl",
                    "reproduce": "engram-conformance replay "
                    "reports/transcripts/ENV-002-envelope_has_contract_shape.jsonl",
                }
            ],
            "timing": {"time_s": 0.5, "calls": 7, "waited_s": 0},
        },
        {
            "id": "SEARCH-004",
            "family": "SEARCH",
            "level": "should",
            "statement": "Search results are ranked by score, highest first.",
            "source": "seed §4 Búsqueda",
            "verdict": "warn",
            "checks": ["results_ranked_by_score"],
            "reason": None,
            "baseline": None,
            "flaky": True,
            "recheck": "flaky",
            "recheck_transcript": "transcripts/results_ranked_by_score.recheck.jsonl",
            "failures": [
                {
                    "check": "results_ranked_by_score",
                    "expected": "scores in descending order",
                    "observed": "scores [0.2, 0.9]",
                    "seed": None,
                    "calls": [],
                    "transcript": None,
                    "reproduce": None,
                }
            ],
        },
        {
            "id": "GATE-002",
            "family": "GATE",
            "level": "must",
            "statement": "forget without a confirmation answers CONFIRMATION_REQUIRED.",
            "source": "seed §6 Confirmación",
            "verdict": "not_applicable",
            "checks": ["forget_needs_confirmation"],
            "reason": "the descriptor declares engram_memory_forget absent",
            "baseline": None,
            "flaky": False,
            "recheck": None,
            "recheck_transcript": None,
            "failures": [],
        },
        {
            "id": "IDEM-003",
            "family": "IDEM",
            "level": "must",
            "statement": "A replayed capture returns the first answer.",
            "source": "design Idempotency",
            "verdict": "error",
            "checks": ["replay_returns_first_answer"],
            "reason": "not testable: tool engram_memory_capture absent",
            "baseline": None,
            "flaky": False,
            "recheck": None,
            "recheck_transcript": None,
            "failures": [],
        },
        {
            "id": "IDEM-004",
            "family": "IDEM",
            "level": "must",
            "statement": "A conflicting replay writes nothing.",
            "source": "design Idempotency",
            "verdict": "pass",
            "checks": ["digest_conflict_writes_nothing"],
            "reason": None,
            "baseline": "stale",
            "flaky": False,
            "recheck": None,
            "recheck_transcript": None,
            "failures": [],
        },
    ],
}


def small() -> dict[str, Any]:
    """A fresh copy of the small hand-written document (tests may change it)."""
    return copy.deepcopy(SMALL)


def _text(min_size: int = 0) -> st.SearchStrategy[str]:
    pieces = st.one_of(st.sampled_from(NASTY), st.text(max_size=8))
    return st.lists(pieces, max_size=4).map("".join).filter(lambda s: len(s) >= min_size)


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text(), inner, max_size=3),
    max_leaves=6,
)
_check = st.from_regex(r"\A[a-z][a-z0-9_]{0,12}\Z")
_ALLOWED = {  # level -> the verdicts it may get
    "must": [Verdict.PASS, Verdict.FAIL, Verdict.NOT_APPLICABLE, Verdict.ERROR],
    "should": [Verdict.PASS, Verdict.WARN, Verdict.NOT_APPLICABLE, Verdict.ERROR],
    "profile": [Verdict.PASS, Verdict.WARN, Verdict.NOT_APPLICABLE, Verdict.ERROR],
}


@st.composite
def failures(draw: st.DrawFn) -> dict[str, Any]:
    cut = st.fixed_dictionaries(
        {
            "sha256": st.from_regex(r"\A[0-9a-f]{64}\Z"),
            "bytes": st.integers(min_value=0),
            "begins": _text(),
            "ends": _text(),
        }
    )
    calls = st.fixed_dictionaries(
        {"tool": _text(), "arguments": _json, "answer": _json}
    ) | st.fixed_dictionaries(
        {"tool": _text(), "arguments": st.none(), "answer": _json, "arguments_cut": cut}
    )
    return {
        "check": draw(_check),
        "expected": draw(_text()),
        "observed": draw(_text()),
        "seed": draw(st.none() | st.integers()),
        "calls": draw(st.lists(calls, max_size=2)),
        "transcript": draw(st.none() | st.just("transcripts/X-001-some_check.jsonl")),
        "reproduce": draw(st.none() | _text(min_size=1)),
    }


@st.composite
def rules(draw: st.DrawFn) -> dict[str, Any]:
    family = draw(st.sampled_from(["ENV", "SCHEMA", "IDEM", "HOST"]))
    level = draw(st.sampled_from(list(_ALLOWED)))
    verdict = draw(st.sampled_from(_ALLOWED[level]))
    needs_reason = verdict in (Verdict.NOT_APPLICABLE, Verdict.ERROR)
    flaky = draw(st.booleans())
    baselines: list[str | None] = [None]
    if verdict in (Verdict.PASS, Verdict.NOT_APPLICABLE):
        baselines.append("stale")
    if verdict in (Verdict.FAIL, Verdict.WARN, Verdict.ERROR):
        baselines.append("known_failure")
    return {
        "id": f"{family}-{draw(st.integers(1, 999)):03d}",
        "family": family,
        "level": level,
        "statement": draw(_text(min_size=1)),
        "source": draw(_text(min_size=1)),
        "verdict": verdict.value,
        "checks": draw(st.lists(_check, max_size=2, unique=True)),
        "reason": draw(_text(min_size=1) if needs_reason else st.none() | _text()),
        "baseline": draw(st.sampled_from(baselines)),
        "flaky": flaky,
        "failures": draw(st.lists(failures(), max_size=2)),
        "recheck": "flaky" if flaky else draw(st.sampled_from([None, "confirmed"])),
        "recheck_transcript": "transcripts/X-001-some_check.recheck.jsonl" if flaky else None,
    }


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """A valid report document (JSON data), hostile in every free string."""
    drawn = draw(st.lists(rules(), max_size=8, unique_by=lambda rule: rule["id"]))
    gate_fails = any(
        rule["baseline"] == "stale"
        or (
            rule["baseline"] != "known_failure"
            and (
                (rule["verdict"] == "fail" and not rule["flaky"])
                or (rule["verdict"] == "error" and rule["level"] == "must")
            )
        )
        for rule in drawn
    )
    started = draw(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)))
    stamp = started.replace(tzinfo=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    summary = _text(min_size=1).map(lambda s: s.replace("\r", " ").replace("\n", " "))
    tools = st.lists(_text(min_size=1), max_size=3, unique=True)
    server_info = st.fixed_dictionaries(
        {"name": _text(), "version": _text(), "protocol_version": _text()}
    )
    return {
        "$schema": "urn:engram-conformance:report:v1",
        "kit": {"name": "engram-conformance", "version": draw(_text(min_size=1))},
        "spec": {
            "contract": "engram-memory",
            "contract_version": "1.0.0",
            "spec_version": "1.0.0",
            "digest": "sha256:" + "0" * 64,
        },
        "run": {
            "started_at": stamp,
            "duration_s": draw(st.floats(min_value=0, max_value=1e6)),
            "seed": draw(st.integers()),
            "profile": draw(st.sampled_from(["quick", "full"])),
            "budget_s": draw(st.none() | st.floats(min_value=0, max_value=1e6, exclude_min=True)),
            "only": draw(st.lists(st.sampled_from(["ENV", "IDEM-003", "HOST"]), unique=True)),
            "command": draw(_text(min_size=1)),
        },
        "target": {
            "name": draw(_text(min_size=1)),
            "transport": draw(st.sampled_from(["stdio", "http", "inprocess"])),
            "descriptor": draw(st.none() | _text(min_size=1)),
            "server_info": draw(st.none() | server_info),
            "stderr_tail": draw(st.none() | _text()),
        },
        "conformance": {
            "class": draw(st.sampled_from(["full", "partial", "none"])),
            "tools_claimed": draw(tools),
            "tools_listed": draw(tools),
            "summary": draw(summary),
        },
        "exit_code": draw(st.sampled_from([1, 2] if gate_fails else [0, 1, 2])),
        "counts": {str(v): n for v, n in tally(rule["verdict"] for rule in drawn).items()},
        "rules": drawn,
    }
