"""The problems of a run grouped by cause, so that one fault read by many rules is read once.

A server that stops answering makes every later check an ``error`` with the same reason; a
check that finds one broken answer may charge several rules. A reader needs the fault once,
with the rules it touched and the evidence of its first occurrence, so the renderers show
groups: same verdict, same check, same reason (the rule's reason, else the first line of what
the check observed).
"""

from __future__ import annotations

from dataclasses import dataclass

from .document import CheckTiming, ErrorRecord, FailureRecord, ReportDocument, RuleRecord, Verdict

#: The verdicts whose rules are grouped, in the order a reader needs them.
GROUPED = (Verdict.FAIL, Verdict.ERROR, Verdict.WARN)


@dataclass(frozen=True)
class Cause:
    """Rules with one verdict, one check and one reason; ``evidence`` is the first failure
    found among them (None when none carries one, as with errors), ``stopped`` the first
    error's record (the call under way when the check stopped: None when none carries one),
    ``timing`` the check's time, calls and waits (None when the run did not time it)."""

    verdict: Verdict
    check: str
    reason: str
    rules: tuple[RuleRecord, ...]
    evidence: FailureRecord | None
    stopped: ErrorRecord | None = None
    timing: CheckTiming | None = None

    @property
    def headline(self) -> str:
        """What went wrong, in a line: the reason given, else what the check expected (what it
        observed is in the evidence, and often a whole answer)."""
        if self.rules[0].reason or self.evidence is None:
            return self.reason
        expected = self.evidence.expected.strip().splitlines()
        return f"expected {expected[0]}" if expected else self.reason

    @property
    def anchor(self) -> str:
        """The page anchor of the group: its first rule's."""
        return f"cause-{self.rules[0].id}"


def causes(document: ReportDocument, verdict: Verdict) -> tuple[Cause, ...]:
    """The rules of ``verdict`` grouped by cause, groups in the order of their first rule;
    for failures, rules the baseline knows come after new ones."""
    rules = [rule for rule in document.rules if rule.verdict == verdict]
    rules.sort(key=lambda rule: rule.baseline == "known_failure")
    groups: dict[tuple[str, str], list[RuleRecord]] = {}
    for rule in rules:
        groups.setdefault(_key(rule), []).append(rule)
    timed = document.run.timing
    timings = {timing.check: timing for timing in timed.checks} if timed is not None else {}
    return tuple(
        Cause(
            verdict,
            check,
            reason,
            tuple(members),
            _evidence(members),
            _stopped(members),
            timings.get(check),
        )
        for (check, reason), members in groups.items()
    )


def _key(rule: RuleRecord) -> tuple[str, str]:
    first = rule.failures[0] if rule.failures else None
    check = first.check if first else ", ".join(rule.checks)
    observed = first.observed.strip().splitlines() if first else []
    reason = rule.reason or (observed[0] if observed else "")
    return check, reason


def _evidence(rules: list[RuleRecord]) -> FailureRecord | None:
    return next((rule.failures[0] for rule in rules if rule.failures), None)


def _stopped(rules: list[RuleRecord]) -> ErrorRecord | None:
    return next((rule.error for rule in rules if rule.error is not None), None)


def tally(found: tuple[Cause, ...]) -> str:
    """How many rules and causes ``found`` holds: "3 rules, 1 cause"."""
    rules = sum(len(cause.rules) for cause in found)
    return f"{counted(rules, 'rule')}, {counted(len(found), 'cause')}"


def counted(count: int, noun: str) -> str:
    """``count`` ``noun``s, the noun singular for one."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
