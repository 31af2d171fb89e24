"""What a loaded machine may do to a report: the timing rules (a call answered within a share of
its time-out: DESIGN's "Bounded cost") judge how fast the server answered, so under load any
server may read ``warn`` there, and a test that pins a report's verdicts lets such a warning
through only when every failure of its rule is a late answer (``CheckContext.timed``)."""

from __future__ import annotations

from collections.abc import Iterable

from engram_conformance.reports.document import RuleRecord

#: What every failure of a timing rule expects (``CheckContext.timed``).
LATE = " answered within "


def late_only(rule: RuleRecord) -> bool:
    """Whether ``rule`` did not pass only because calls answered late, or not within the call
    time-out: a ``warn`` of a timing rule, not a fault of another kind."""
    return (
        rule.verdict == "warn"
        and bool(rule.failures)
        and all(LATE in failure.expected for failure in rule.failures)
    )


def without_late_warnings(rules: Iterable[RuleRecord], expected: Iterable[str]) -> list[RuleRecord]:
    """``rules`` without the timing warnings of rules not in ``expected`` (those the test
    expects not to pass, whose verdicts it pins as they are)."""
    pinned = set(expected)
    return [rule for rule in rules if rule.id in pinned or not late_only(rule)]
