"""The pytest plugin: ``pytest --engram-target FILE`` makes each rule of the contract a test item.

Installed with the kit (entry point ``pytest11``) and inert unless ``--engram-target`` or
``--engram-reference`` is given; it then adds one item per selected rule of the contract the
server speaks (``--engram-contract``, the descriptor's, else the one ``tools/list`` shows),
``engram::CONTRACT::RULE-ID`` (``engram::engram-memory::HOST-001``; marked ``engram``, so
``-m engram`` runs them alone). The harness runs once, when the first of them runs, and only
for the rules still selected after ``-k``, ``-m`` or ``--deselect``. Each
item then says its rule's verdict the way the gate of ``engram-conformance run`` reads it
(``RuleRecord.fails_gate``), so that pytest fails exactly when that command exits 1:

- pass: passed; warn, or a flaky fail (it did not fail again alone): passed, with the evidence
  in the item's report section and the terminal summary;
- fail, and error on a ``must`` rule: failed, with what was expected and observed, the calls and
  how to reproduce; a stale baseline entry: failed;
- not_applicable, and error on a ``should`` or ``profile`` rule: skipped, with the reason;
- a known failure (listed in the baseline): xfailed.

The report folder (``--engram-report-dir``) is written as by ``run``. A server that would not
start makes every item an error at setup, as a failing session fixture does.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .execution import DEFAULT_REPORT_DIR, EXAMPLE_DB, run_target

if TYPE_CHECKING:
    from engram_conformance.reports import RuleRecord

    from .request import PreparedRun

MARKER = "engram"
SUITE = "engram"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("engram", "Engram memory MCP conformance (engram-conformance)")
    group.addoption(
        "--engram-target",
        metavar="FILE",
        help="Test the server of this target descriptor (TOML): one test item per rule.",
    )
    group.addoption(
        "--engram-reference",
        action="store_true",
        help="Test the bundled reference server instead of a descriptor's.",
    )
    group.addoption(
        "--engram-contract",
        metavar="NAME",
        help="The contract the server speaks (default: the descriptor's, else tools/list's).",
    )
    group.addoption(
        "--engram-profile",
        choices=("quick", "full"),
        default="quick",
        help="quick: the scripted checks; full: also the generated ones (default: quick).",
    )
    group.addoption(
        "--engram-only",
        action="append",
        default=[],
        metavar="RULE-OR-FAMILY",
        help="Only these rules or families (repeatable, or comma-separated).",
    )
    group.addoption("--engram-seed", type=int, help="Seed of the generated data.")
    group.addoption(
        "--engram-era",
        metavar="ERA",
        help="The MCP protocol era to speak: auto (the newest the server speaks), 2025-11-25, "
        "2026-07-28 or both (default: the descriptor's server.era, else auto; docs/eras.md).",
    )
    group.addoption(
        "--engram-budget", type=float, metavar="SECONDS", help="Stop starting checks after this."
    )
    group.addoption("--engram-baseline", metavar="FILE", help="Known failures (JSON): they xfail.")
    group.addoption(
        "--engram-report-dir",
        metavar="DIR",
        default=DEFAULT_REPORT_DIR,
        help=f"Where the reports go (default: {DEFAULT_REPORT_DIR}).",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}: a rule of the Engram memory MCP contract (engram-conformance)"
    )
    if config.getoption("engram_target") or config.getoption("engram_reference"):
        config.pluginmanager.register(EngramRun(config), "engram-conformance-run")


class RuleBroken(Exception):
    """The rule fails the gate; the message is the evidence."""


class RunNotMade(Exception):
    """The harness could not run against the target (the server would not start)."""


class EngramRun:
    """One run of the harness for the session, and the verdicts its items read."""

    def __init__(self, config: pytest.Config) -> None:
        from dataclasses import replace

        from engram_conformance.spec.registry import DEFAULT

        from .exceptions import StartupFailed
        from .request import RunRequest, Unusable, prepare
        from .runner import rule_selected
        from .targets.choice import NotOneTarget, target_name

        option = config.getoption
        target = Path(option("engram_target")) if option("engram_target") else None
        forced = option("engram_contract")
        self.report_dir = Path(option("engram_report_dir"))
        wanted = option("engram_only")
        only = tuple(part.strip() for item in wanted for part in item.split(",") if part.strip())
        known = option("engram_baseline")
        request = RunRequest(
            target=target_name(target, option("engram_reference"), contract=forced),
            contract=forced,
            profile=option("engram_profile"),
            only=only,
            seed=option("engram_seed"),
            era=option("engram_era"),
            budget_s=option("engram_budget"),
            baseline=Path(known) if known else None,
            example_db=self.report_dir / EXAMPLE_DB,
        )
        try:
            try:
                self.prepared: PreparedRun = prepare(request)
            except StartupFailed:  # the run says so at the first item's setup
                self.prepared = prepare(replace(request, contract=DEFAULT))
        except NotOneTarget:
            raise pytest.UsageError("give one of --engram-target, --engram-reference") from None
        except Unusable as error:
            raise pytest.UsageError(f"engram-conformance: {error}") from None
        self.contract = self.prepared.contract
        spec, self.options = self.prepared.spec, self.prepared.options
        self.rule_ids = [r.id for r in spec.rules.values() if rule_selected(r, self.options)]
        if not self.rule_ids:
            raise pytest.UsageError(f"--engram-only {','.join(only)} names no rule or family")
        self.command = shlex.join(["pytest", *config.invocation_params.args])
        self.rules: dict[str, RuleRecord] | None = None
        self.summary: str | None = None
        self.problem: BaseException | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Add the rule items before the keyword, marker and deselect filters see the items, and
        announce them as collected (the terminal counts the items of collect reports)."""
        suite_id = f"{SUITE}::{self.contract.name}"
        suite = EngramSuite.from_parent(session, name=suite_id, nodeid=suite_id, run=self)
        report = pytest.CollectReport(suite.nodeid, "passed", None, list(suite.collect()))
        config.hook.pytest_collectreport(report=report)
        items.extend(item for item in report.result if isinstance(item, pytest.Item))  # all are

    def verdict(self, session: pytest.Session, rule_id: str) -> RuleRecord | None:
        """The report's record of ``rule_id``; the first call runs the harness."""
        if self.rules is None and self.problem is None:
            self._run(session)
        if self.problem is not None:
            raise self.problem
        assert self.rules is not None
        return self.rules.get(rule_id)

    def _run(self, session: pytest.Session) -> None:
        from dataclasses import replace

        from engram_conformance.reports.writer import write_reports

        from .exceptions import StartupFailed

        selected = [item.name for item in session.items if isinstance(item, RuleItem)]
        options = self.options
        if sorted(selected) != sorted(self.rule_ids):
            options = replace(options, only=tuple(selected))
        try:
            document = run_target(
                replace(self.prepared, options=options), self.report_dir, command=self.command
            )
        except StartupFailed as error:
            self.problem = RunNotMade(f"engram-conformance: the run could not be made: {error}")
            return
        except Exception as error:
            self.problem = error
            return
        write_reports(document, self.report_dir)
        self.rules = {rule.id: rule for rule in document.rules}
        self.summary = document.conformance.summary

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from engram_conformance.reports import Verdict

        if self.rules is None:
            return
        terminalreporter.write_sep("-", "engram-conformance")
        terminalreporter.write_line(self.summary or "")
        noted = [r for r in self.rules.values() if r.verdict == Verdict.WARN or r.flaky]
        for rule in noted:
            why = "flaky" if rule.flaky else f"warn ({rule.level})"
            terminalreporter.write_line(f"  {rule.id}: {why}: {rule.statement}")
        terminalreporter.write_line(f"reports: {self.report_dir}")


class EngramSuite(pytest.Collector):
    """The rules of the contract as one collector, ``engram``."""

    def __init__(self, *, run: EngramRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run

    def collect(self) -> Iterator[RuleItem]:
        for rule_id in self.run.rule_ids:
            yield RuleItem.from_parent(self, name=rule_id, run=self.run)


class RuleItem(pytest.Item):
    """One rule: its verdict in the session's run, as a test outcome."""

    def __init__(self, *, run: EngramRun, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.add_marker(MARKER)

    def setup(self) -> None:
        try:
            self.run.verdict(self.session, self.name)
        except RunNotMade as problem:
            pytest.fail(str(problem), pytrace=False)

    def runtest(self) -> None:
        from engram_conformance.reports import Verdict
        from engram_conformance.reports.text import known_failure

        rule = self.run.verdict(self.session, self.name)
        if rule is None:
            pytest.skip("not decided in this run")
        verdict, reason = rule.verdict, rule.reason
        self.user_properties.append(("engram_verdict", verdict.value))
        if rule.baseline == "known_failure":
            pytest.xfail(known_failure(rule))
        if rule.fails_gate:
            raise RuleBroken(self._evidence(rule))
        if verdict == Verdict.NOT_APPLICABLE:
            pytest.skip(reason or "not applicable")
        if verdict == Verdict.ERROR:
            pytest.skip(f"could not be decided: {reason}")
        if verdict == Verdict.WARN or rule.flaky:
            self.add_report_section("call", "engram", self._evidence(rule))

    def _evidence(self, rule: RuleRecord) -> str:
        from engram_conformance.reports.text import rule_evidence

        return rule_evidence(rule, standalone=True, folder=self.run.report_dir)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, RuleBroken):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"{SUITE}::{self.run.contract.name}::{self.name}"
