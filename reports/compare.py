"""Two runs compared rule by rule: what broke, what was fixed, what else changed.

A CI gate asks one question of a change: did it break a rule that held? A rule *regressed* when
its verdict got worse and is now ``fail`` or ``error`` (a rule the old run did not have counts
as held). Everything else that moved is listed too: fixes, other changed verdicts (a new
warning, a rule now not applicable), the same bad verdict for another reason (changed
evidence), and rules added or removed (the contract's spec changed between the runs).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .document import ReportDocument, RuleRecord, Verdict

_BROKEN = (Verdict.FAIL, Verdict.ERROR)


class NotComparable(ValueError):
    """Reports of two different contracts."""


def one_contract(reports: Iterable[ReportDocument]) -> None:
    """``NotComparable`` unless every report is of one contract."""
    contracts = sorted({report.spec.contract for report in reports})
    if len(contracts) > 1:
        raise NotComparable(f"the reports are of different contracts ({', '.join(contracts)})")


@dataclass(frozen=True)
class Change:
    rule: str
    before: Verdict | None
    after: Verdict | None
    #: what the new run says of the rule (its reason, or what its first check observed)
    why: str


@dataclass(frozen=True)
class Comparison:
    regressions: tuple[Change, ...]
    fixes: tuple[Change, ...]
    other_verdicts: tuple[Change, ...]
    changed_evidence: tuple[Change, ...]
    added: tuple[Change, ...]
    removed: tuple[Change, ...]

    @property
    def regressed(self) -> bool:
        return bool(self.regressions)


def compare(old: ReportDocument, new: ReportDocument) -> Comparison:
    """What changed from ``old`` to ``new``; ``NotComparable`` for different contracts."""
    one_contract((old, new))
    before = {rule.id: rule for rule in old.rules}
    after = {rule.id: rule for rule in new.rules}
    groups: dict[str, list[Change]] = {
        name: [] for name in ("regressions", "fixes", "other", "evidence", "added", "removed")
    }
    for rule_id, rule in after.items():
        was = before.get(rule_id)
        kind = _kind(was, rule)
        if kind is not None:
            groups[kind].append(Change(rule_id, was and was.verdict, rule.verdict, _why(rule)))
    for rule_id, rule in before.items():
        if rule_id not in after:
            groups["removed"].append(Change(rule_id, rule.verdict, None, ""))
    return Comparison(
        regressions=tuple(groups["regressions"]),
        fixes=tuple(groups["fixes"]),
        other_verdicts=tuple(groups["other"]),
        changed_evidence=tuple(groups["evidence"]),
        added=tuple(groups["added"]),
        removed=tuple(groups["removed"]),
    )


def _kind(was: RuleRecord | None, rule: RuleRecord) -> str | None:
    """Which list a rule of the new run belongs to (None: nothing changed)."""
    if was is None:
        return "regressions" if rule.verdict in _BROKEN else "added"
    if rule.verdict in _BROKEN and was.verdict not in _BROKEN:
        return "regressions"
    if was.verdict in _BROKEN and rule.verdict not in _BROKEN:
        return "fixes"
    if was.verdict != rule.verdict:
        return "other"
    if rule.verdict != Verdict.PASS and _why(was) != _why(rule):
        return "evidence"
    return None


def _why(rule: RuleRecord) -> str:
    if rule.reason:
        return rule.reason
    if rule.failures:
        lines = rule.failures[0].observed.strip().splitlines()
        return lines[0] if lines else ""
    return ""


def as_text(comparison: Comparison) -> str:
    """The comparison as Markdown: a heading per non-empty list, a line per rule."""
    sections = (
        ("Regressions", comparison.regressions),
        ("Fixes", comparison.fixes),
        ("Other changed verdicts", comparison.other_verdicts),
        ("Same verdict, changed evidence", comparison.changed_evidence),
        ("Rules added", comparison.added),
        ("Rules removed", comparison.removed),
    )
    lines: list[str] = []
    for title, changes in sections:
        if changes:
            lines += ["", f"## {title} ({len(changes)})", ""]
            lines += [_line(change) for change in changes]
    if not lines:
        return "No rule changed.\n"
    headline = f"{len(comparison.regressions)} regressions, {len(comparison.fixes)} fixes"
    return "\n".join([headline, *lines]) + "\n"


def _line(change: Change) -> str:
    before = change.before.label if change.before else "absent"
    after = change.after.label if change.after else "absent"
    why = f": {' '.join(change.why.split())[:160]}" if change.why else ""
    return f"- {change.rule}: {before} → {after}{why}"
