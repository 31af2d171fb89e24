"""What a mutant breaks, and the one assertion that a run of the harness caught it.

Each catalogue entry declares what its mutant breaks (``Caught``). ``assert_caught`` holds when
every rule it breaks got its broken verdict (``fail`` for a must, ``warn`` for should and
profile), every rule it leaves undecided got ``error``, and every other rule the run selected
passed or was not applicable; where the entry says so, also when the failures of a broken rule
were reported by exactly the checks it names, or are all about the text it names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engram_conformance.spec.engram_memory import load

if TYPE_CHECKING:
    from engram_conformance.conformance.runner import RunResult
    from engram_conformance.reports.document import RuleRecord

# The harness is imported where a run is judged, not here: every catalogue imports this module,
# and so does each mutant's server process (``stdio_server.py``), which needs none of it (it
# would import the whole kit and Hypothesis: a second of CPU a server).

#: The verdicts of a rule a mutant does not break.
SOUND = ("pass", "not_applicable")


@dataclass(frozen=True)
class Caught:
    """The rules a mutant breaks, those whose checks it stops from deciding (``undecided``),
    and what the failures of some broken rules are: reported by exactly these checks
    (``reported_by``), or each expecting something that contains this text (``about``)."""

    broken: tuple[str, ...]
    undecided: tuple[str, ...] = ()
    reported_by: Mapping[str, frozenset[str]] = field(default_factory=dict)
    about: Mapping[str, str] = field(default_factory=dict)
    #: the contract whose rules these are (their levels say the broken verdict)
    contract: str = "engram-memory"

    def __post_init__(self) -> None:
        assert set(self.reported_by) | set(self.about) <= set(self.broken), self

    @classmethod
    def reported(
        cls, by: Mapping[str, str | Iterable[str]], undecided: tuple[str, ...] = ()
    ) -> Caught:
        """The rules of ``by`` broken, each reported by exactly the check (or checks) named."""
        checks = {rule: frozenset({c} if isinstance(c, str) else c) for rule, c in by.items()}
        return cls(tuple(by), undecided, reported_by=checks)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules the mutant breaks or leaves undecided."""
        return self.broken + self.undecided

    def verdicts(self) -> dict[str, str]:
        """The verdict of each rule the mutant breaks or leaves undecided."""
        from ..conformance.inprocess import broken_verdict

        broken = {rule: broken_verdict(rule, self.contract) for rule in self.broken}
        return broken | dict.fromkeys(self.undecided, "error")


#: ``selecting(caught, named)`` (the fixture of ``conftest.py``): the rules a mutant's run
#: selects, given what the mutant is declared to break (``caught``) and the rules or families its
#: test names (``named``).
Selecting = Callable[[Caught, tuple[str, ...]], tuple[str, ...]]


def _findings(run: RunResult | Mapping[str, RuleRecord]) -> dict[str, tuple[str, Sequence[Any]]]:
    """Each rule a run selected -> its verdict and its failures, from an in-process run's
    result or from the rules of a report (``run_described``)."""
    from engram_conformance.conformance.runner import RunResult

    if isinstance(run, RunResult):
        evidence = run.ledger.evidence
        return {
            rule: (verdict.verdict, evidence[rule].failures if rule in evidence else ())
            for rule, verdict in run.verdicts.items()
        }
    return {rule: (str(record.verdict), record.failures) for rule, record in run.items()}


def assert_caught(run: RunResult | Mapping[str, RuleRecord], caught: Caught) -> None:
    """The run read as ``caught`` declares, and every other rule it selected is sound."""
    found = _findings(run)
    declared = caught.verdicts()
    read = {rule: v for rule, (v, _) in found.items() if rule in declared or v not in SOUND}
    failures = {rule: found[rule][1] if rule in found else () for rule in caught.broken}
    reported = {rule: {f.check for f in failures[rule]} for rule in caught.reported_by}
    about = {
        rule: text
        for rule, text in caught.about.items()
        if all(text in failure.expected for failure in failures[rule])
    }
    expected = (declared, caught.reported_by, caught.about)
    assert (read, reported, about) == expected, (
        f"the run read {(read, reported, about)}{_unexpected_errors(run, declared)}"
    )


def _unexpected_errors(
    run: RunResult | Mapping[str, RuleRecord], declared: Mapping[str, str]
) -> str:
    """The reasons of the errors no entry declares, each once and whole: a run that went wrong
    (a fault, a time-out under load) says why in the assertion's message, which pytest
    otherwise cuts."""
    from engram_conformance.conformance.runner import RunResult

    verdicts = run.verdicts if isinstance(run, RunResult) else run
    reasons = {
        str(record.reason)
        for rule, record in verdicts.items()
        if str(record.verdict) == "error" and declared.get(rule) != "error"
    }
    return "".join(f"\nerror: {reason}" for reason in sorted(reasons))


def family_verdicts(result: RunResult, family: str) -> dict[str, str]:
    """Rule id -> verdict, for the rules of ``family``."""
    return {
        rule.id: result.verdicts[rule.id].verdict
        for rule in load().rules.values()
        if rule.family == family
    }


def mem_rules(family: str) -> list[str]:
    """The ids of the mem contract's rules of ``family``, in the spec's order."""
    from engram_conformance.conformance.mem.plugin import CONTRACT as MEM

    return [rule.id for rule in MEM.load_spec().rules.values() if rule.family == family]


def all_pass(family: str) -> dict[str, str]:
    """What a conforming server gets: pass, and not_applicable for the untestable rules."""
    rules = load().rules.values()
    return {
        rule.id: "pass" if rule.testable else "not_applicable"
        for rule in rules
        if rule.family == family
    }
