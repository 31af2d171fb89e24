"""``--mutation-score PATH``: the kill matrix of the mutant tests this run makes (``score.py``).

    pytest -n 0 tests/mutants --mutation-score docs/mutation-score.md

Without the option nothing is recorded, and each mutant's run selects only the rules its test
declares it breaks or leaves undecided (``selecting``): that still proves every mutant killed by
its rules, in a fraction of the time. With it (in one process: the records are this process's),
each run selects the rules its test names, whole families, so the page also shows that no other
rule of those families reads broken; the slow test of ``test_mutation_score.py`` makes that run
and compares its matrix with the page's.
"""

from __future__ import annotations

import shlex
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance import runner
from engram_conformance.conformance.recheck import Rechecked

from .caught import Selecting
from .score import Meta, Record, Recording, first_paragraph, is_mutant_test
from .score import read as read_page
from .score import render as render_page

RECORDS = pytest.StashKey[dict[str, Record]]()
STARTED = pytest.StashKey[float]()
WRITTEN = pytest.StashKey[Path]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--mutation-score",
        metavar="PATH",
        default=None,
        help="write the kill matrix of the mutant tests run (Markdown) to PATH",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("mutation_score", None):
        if config.getoption("numprocesses", None):
            raise pytest.UsageError("--mutation-score records in one process: add -n 0")
        config.stash[RECORDS] = {}
        config.stash[STARTED] = time.monotonic()


@pytest.fixture
def selecting(pytestconfig: pytest.Config) -> Selecting:
    """The rules ``caught`` declares and the single rules named (a test names one outside its
    families for the calls its check provokes, which the broken rule's check judges), unless
    ``--mutation-score`` records the kill matrix: then every rule named, the others of each
    family named having to stay sound."""
    if pytestconfig.getoption("mutation_score", None):
        return lambda caught, named: named
    return lambda caught, named: tuple(dict.fromkeys((*caught.rules, *_single_rules(named))))


@pytest.fixture(autouse=True)
def _no_recheck(pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``--mutation-score`` a mutant's run checks no failure again (as ``run
    --no-recheck``): a re-check only tells the gate a flaky failure from a confirmed one, and
    the verdicts and failures the tests assert are the run's own, decided without it
    (``runner.decide`` reads the run's ledger). It ran each broken rule's checks twice. The slow
    kill matrix (``--mutation-score``) still re-checks, as a vendor's run does."""
    if not pytestconfig.getoption("mutation_score", None):
        monkeypatch.setattr(runner._RunSteps, "recheck", _nothing_rechecked)


async def _nothing_rechecked(steps: Any) -> Rechecked:
    return Rechecked()


def _single_rules(named: tuple[str, ...]) -> tuple[str, ...]:
    """The rule ids of ``named`` that are no family (``HOST-007``, not ``HOST``)."""
    return tuple(rule for rule in named if "-" in rule)


@pytest.fixture(autouse=True)
def _record_the_mutant(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``--mutation-score``: the test module's ``plant``, ``run_against``,
    ``run_described`` and ``assert_caught`` tell this test's record what they see while the
    test runs."""
    records = request.config.stash.get(RECORDS, None)
    if records is None or not isinstance(request.node, pytest.Function):
        return
    item = request.node
    name = item.originalname.removeprefix("test_")
    record = Record(item.nodeid, name, first_paragraph(item.function.__doc__))
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        record.name = callspec.id.rstrip("-") or record.name
    recording = Recording(record)
    for name in ("plant", "run_against", "run_described", "assert_caught"):
        if hasattr(request.module, name):
            wrapped = getattr(recording, name)(getattr(request.module, name))
            monkeypatch.setattr(request.module, name, wrapped)
    records[item.nodeid] = record


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Any:
    report = yield
    record = item.config.stash.get(RECORDS, {}).get(item.nodeid)
    if record is not None:
        if report.when == "call":
            record.seconds = report.duration
        if report.failed or report.skipped:
            if record.outcome in ("not run", "passed"):
                where = "" if report.when == "call" else f" at {report.when}"
                record.outcome = report.outcome + where
        elif report.when == "call":
            record.outcome = "passed"
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    records = config.stash.get(RECORDS, None)
    if records is None:
        return
    chosen = [
        records[item.nodeid]
        for item in session.items
        if item.nodeid in records and (is_mutant_test(item.nodeid) or records[item.nodeid].asserted)
    ]
    meta = Meta(
        command=shlex.join(["pytest", *config.invocation_params.args]),
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        seconds=time.monotonic() - config.stash[STARTED],
    )
    path = Path(config.invocation_params.dir, config.getoption("mutation_score"))
    references = [record for record in records.values() if record not in chosen]
    path.write_text(render_page(chosen, meta, references), encoding="utf-8")
    config.stash[WRITTEN] = path


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    path = config.stash.get(WRITTEN, None)
    if path is not None:
        page = read_page(path.read_text(encoding="utf-8"))
        terminalreporter.write_line(
            f"mutation score: {page.killed}/{page.total} mutants killed, written to {path}"
        )
