"""Checks side by side start the longest first, as an earlier run timed them, so that no long
check starts last and runs on alone while the other slots stand empty (``runner.start_order``):
the CLI takes each check's seconds from the report already in ``--report-dir``, read leniently."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from engram_conformance.conformance import request as requests
from engram_conformance.conformance.check_registry import Check
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.cli.run import _earlier_costs
from engram_conformance.conformance.runner import start_order

from .inprocess import checks_only, run_against

#: checks of the reference that run side by side, none waiting on purpose, in the run order
SIDE_BY_SIDE = (
    "limit_caps_the_page",
    "following_cursors_returns_every_record_once",
    "scopes_are_independent",
)


def _check(name: str, *, waits: bool = False) -> Check:
    return Check(name, ("RULE-001",), (), "quick", lambda ctx: None, None, waits=waits)


def test_the_longest_start_first_after_the_waiting_ones() -> None:
    checks = [_check("a"), _check("b"), _check("untimed"), _check("wait", waits=True), _check("c")]
    costs = {"a": 1.0, "b": 3.0, "c": 2.0, "wait": 0.1}
    order = [check.id for check in start_order(checks, costs)]
    # the untimed one counts as the median of the timed ones (1.5: 0.1, 1, 2, 3), after c (2.0)
    assert order == ["wait", "b", "c", "untimed", "a"]


def test_without_costs_the_run_order_stands_but_the_waiting_ones_first() -> None:
    checks = [_check("a"), _check("b"), _check("wait", waits=True)]
    assert [check.id for check in start_order(checks, None)] == ["wait", "a", "b"]
    assert [check.id for check in start_order(checks, {"other": 5.0})] == ["wait", "a", "b"]


def test_a_run_starts_its_checks_by_the_costs_it_is_given(tmp_path: Path) -> None:
    begun: list[str] = []
    costs = {name: float(place) for place, name in enumerate(SIDE_BY_SIDE)}  # the last longest
    with checks_only(*SIDE_BY_SIDE):
        run_against(tmp_path, progress=lambda check, *_: begun.append(check.id), costs=costs)
    assert begun == list(reversed(SIDE_BY_SIDE))


def _report_timing(folder: Path, checks: Any) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    report = {"run": {"timing": {"checks": checks}}}
    (folder / "report.json").write_text(json.dumps(report), encoding="utf-8")


def test_the_costs_are_read_from_the_report_already_there(tmp_path: Path) -> None:
    timed = [{"check": "a", "time_s": 1.5}, {"check": "b", "time_s": 0.25}]
    _report_timing(tmp_path, timed)
    assert _earlier_costs(tmp_path) == {"a": 1.5, "b": 0.25}


@pytest.mark.parametrize(
    "written",
    [None, "not json", json.dumps({"run": {}}), json.dumps({"run": {"timing": {"checks": 3}}})],
    ids=["missing", "garbage", "no timing", "no list"],
)
def test_a_missing_or_broken_report_leaves_the_run_order(tmp_path: Path, written: Any) -> None:
    if written is not None:
        (tmp_path / "report.json").write_text(written, encoding="utf-8")
    assert _earlier_costs(tmp_path) is None


def test_a_cost_that_is_no_finite_number_is_left_out(tmp_path: Path) -> None:
    _report_timing(tmp_path, [{"check": "a", "time_s": math.nan}, {"check": "b", "time_s": 2}])
    assert _earlier_costs(tmp_path) == {"b": 2.0}


class _Asked(Exception):
    pass


def test_run_hands_the_earlier_report_s_costs_to_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[Any] = []

    def ready(request: Any) -> Any:
        asked.append(request)
        raise _Asked

    monkeypatch.setattr(requests, "ready", ready)
    _report_timing(tmp_path, [{"check": "a", "time_s": 4.0}])
    arguments = ["run", "--reference", "--report-dir", str(tmp_path)]
    result = CliRunner().invoke(main, arguments)
    assert isinstance(result.exception, _Asked), result.output
    assert asked[0].check_costs == {"a": 4.0}
