"""What the checks found, rule by rule, and the verdict each rule gets from it.

A check records expectations (``passed`` or ``failed`` with expected and observed) against the
rules it declares; a check that cannot finish (the server faulted, the harness erred) records an
``error``. A rule passes only when something was actually checked and nothing failed: a rule
nothing evaluated is never green.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from engram_conformance import reports


class Rule(Protocol):
    """What the ledger reads of any contract's rule."""

    id: str
    level: str


MAX_FAILURES_KEPT = 5  # a few examples of a broken rule are evidence enough
#: The longest text of evidence kept (expected, observed, an error's problem); a server's
#: answer may be megabytes.
MAX_EVIDENCE_CHARS = 8000


def bounded(text: str) -> str:
    """``text``, or its beginning and its length when it is longer than the evidence keeps."""
    if len(text) <= MAX_EVIDENCE_CHARS:
        return text
    return f"{text[:MAX_EVIDENCE_CHARS]}... ({len(text)} characters)"


@dataclass(frozen=True)
class Reproduction:
    """How a Hypothesis-driven check meets a failing example again: the example's choices, in
    the format of the Hypothesis version that made them (``hypothesis.reproduce_failure``), and,
    for a check that runs several searches, the one that made them (``part``: the generated
    arguments check names a tool and a kind of object: ``"TOOL/broken"``)."""

    check: str
    hypothesis: str
    choices: str
    part: str | None = None


@dataclass(frozen=True)
class Failure:
    check: str
    expected: str
    observed: str
    calls: tuple[dict[str, Any], ...] = ()
    seed: int | None = None
    #: the scripted check whose calls show the failure (a per-call check fails during one)
    during: str | None = None
    #: how to meet the failing example again, for a Hypothesis-driven check
    reproduction: Reproduction | None = None


@dataclass
class CheckTiming:
    """Where a check's time went: its wall time, the calls it made, and the time it spent
    waiting, on purpose (for an expiry, a window, a clock to tick) and for answers that never
    came (calls that timed out), summed over its runs."""

    seconds: float = 0.0
    calls: int = 0
    waited_s: float = 0.0


@dataclass
class Evidence:
    """Everything recorded against one rule."""

    checks: set[str] = field(default_factory=set)
    passed: int = 0
    failures: list[Failure] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: the check whose error came first: the one the ``error`` verdict's reason is from
    error_check: str | None = None
    not_applicable: list[str] = field(default_factory=list)
    #: parts of the rule's statement a check could not decide (an answer no layer could read, an
    #: argument the server does not publish): the rule is then not applicable, never ``pass``
    unchecked: list[str] = field(default_factory=list)
    #: what the passes found, where a pass alone does not say it (which version line, say)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Verdict:
    """A rule's verdict and why, when the verdict alone does not say it."""

    verdict: reports.Verdict
    reason: str | None = None

    def __post_init__(self) -> None:
        # the verdict may be given by its name ("fail"), as the runner reads it out of a reason
        object.__setattr__(self, "verdict", reports.Verdict(self.verdict))


class Ledger:
    def __init__(self) -> None:
        self.evidence: dict[str, Evidence] = defaultdict(Evidence)
        self.failure_count = 0
        self.error_count = 0
        #: check id -> its timing, in the order the checks ran
        self.timings: dict[str, CheckTiming] = {}

    def timed(self, check: str, seconds: float, calls: int, waited_s: float) -> None:
        """Add one run of ``check`` to its timing."""
        timing = self.timings.setdefault(check, CheckTiming())
        timing.seconds += seconds
        timing.calls += calls
        timing.waited_s += waited_s

    def passed(self, rule: str, check: str, note: str | None = None) -> None:
        entry = self.evidence[rule]
        entry.checks.add(check)
        entry.passed += 1
        if note is not None:
            entry.notes.append(bounded(note))

    def failed(self, rule: str, failure: Failure) -> None:
        entry = self.evidence[rule]
        entry.checks.add(failure.check)
        self.failure_count += 1
        _keep(entry, failure)

    def errored(self, rule: str, check: str, problem: str) -> None:
        entry = self.evidence[rule]
        entry.checks.add(check)
        if not entry.errors:
            entry.error_check = check
        entry.errors.append(bounded(problem))
        self.error_count += 1

    def inapplicable(self, rule: str, check: str, reason: str) -> None:
        """The target's declared policy makes the rule unreachable (nothing to test)."""
        entry = self.evidence[rule]
        entry.checks.add(check)
        entry.not_applicable.append(reason)

    def unchecked(self, rule: str, check: str, reason: str) -> None:
        """A part of the rule's statement ``check`` could not decide, and why."""
        entry = self.evidence[rule]
        entry.checks.add(check)
        entry.unchecked.append(bounded(reason))

    @property
    def decisive(self) -> bool:
        """Whether what it holds decides its rules: passes, failures, rules the target's policy
        leaves nothing to test, but no error and no undecided part."""
        return not self.error_count and not any(entry.unchecked for entry in self.evidence.values())

    def absorb(self, other: Ledger) -> None:
        """Add what ``other`` recorded (one check's ledger) after what this one holds, as if it
        had been recorded here: the run keeps its checks' evidence in their run order, however
        they ran side by side."""
        for rule, theirs in other.evidence.items():
            entry = self.evidence[rule]
            entry.checks |= theirs.checks
            entry.passed += theirs.passed
            for failure in theirs.failures:
                _keep(entry, failure)
            if theirs.errors and not entry.errors:
                entry.error_check = theirs.error_check
            entry.errors += theirs.errors
            entry.not_applicable += theirs.not_applicable
            entry.unchecked += theirs.unchecked
            entry.notes += theirs.notes
        self.failure_count += other.failure_count
        self.error_count += other.error_count
        for check, timing in other.timings.items():
            self.timed(check, timing.seconds, timing.calls, timing.waited_s)

    def verdict(self, rule: Rule) -> Verdict:
        """The verdict of ``rule``: a failure of a ``must`` rule fails, of another rule warns; a
        rule with a part left undecided is not applicable (saying which), not ``pass``."""
        entry = self.evidence.get(rule.id)
        if entry is not None and entry.unchecked and not (entry.failures or entry.errors):
            checked = f" ({entry.passed} other part(s) passed)" if entry.passed else ""
            return Verdict(reports.Verdict.NOT_APPLICABLE, f"{entry.unchecked[0]}{checked}")
        if (
            entry is not None
            and entry.not_applicable
            and not (entry.passed or entry.failures or entry.errors)
        ):
            return Verdict(reports.Verdict.NOT_APPLICABLE, entry.not_applicable[0])
        if entry is None or not (entry.passed or entry.failures or entry.errors):
            return Verdict(reports.Verdict.ERROR, "not testable here: no check evaluated this rule")
        if entry.failures:
            broken = reports.Verdict.FAIL if rule.level == "must" else reports.Verdict.WARN
            return Verdict(broken)
        if entry.errors:
            return Verdict(reports.Verdict.ERROR, entry.errors[0])
        return Verdict(reports.Verdict.PASS, "; ".join(entry.notes) or None)


def _keep(entry: Evidence, failure: Failure) -> None:
    """Keep ``failure`` among ``entry``'s, its texts bounded: ``MAX_FAILURES_KEPT`` at most, but
    always the first of each check (each check keeps its evidence)."""
    new_check = all(kept.check != failure.check for kept in entry.failures)
    if len(entry.failures) < MAX_FAILURES_KEPT or new_check:
        expected, observed = bounded(failure.expected), bounded(failure.observed)
        entry.failures.append(replace(failure, expected=expected, observed=observed))
