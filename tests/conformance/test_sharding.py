"""``run --shard I/N``: the plan puts every rule in exactly one shard, with every check that
decides it; it is the same in any process; a shard runs its own checks and judges its own
rules; a bad ``--shard`` is one line and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from engram_conformance.conformance import contracts
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.runner import RunOptions, rule_selected, selected
from engram_conformance.conformance.sharding import BadShard, Shard, plan, planned
from engram_conformance.spec import registry

from ..reports.documents import small

CASES = [(name, profile) for name in registry.names() for profile in ("quick", "full")]


def _plan_of(name: str, profile: str, count: int) -> dict[str, int]:
    contract = contracts.contract(name)
    return plan(contract.checks(), list(contract.load_spec().rules), profile, count)


@pytest.mark.parametrize(("name", "profile"), CASES)
@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_every_rule_is_in_exactly_one_shard_with_every_check_that_decides_it(
    name: str, profile: str, count: int
) -> None:
    contract = contracts.contract(name)
    checks, spec = contract.checks(), contract.load_spec()
    parts = _plan_of(name, profile, count)
    assert list(parts) == list(spec.rules)  # each rule once, in the spec's order
    assert set(parts.values()) <= set(range(1, count + 1))
    runs = [c for c in checks.scripted.values() if not (profile == "quick" and c.profile == "full")]
    for check in runs:
        assert len({parts[rule] for rule in check.rules}) == 1, check.id
    for per_call in checks.per_call.values():  # judged in the shard of the checks it needs
        shards = {parts[rule] for rule in per_call.rules}
        shards |= {parts[r] for p in per_call.provoked_by for r in checks.scripted[p].rules}
        assert len(shards) == 1, per_call.id


@pytest.mark.parametrize(("name", "profile"), CASES)
def test_the_shards_run_every_check_of_the_run_once_and_judge_their_own_rules(
    name: str, profile: str
) -> None:
    contract = contracts.contract(name)
    checks, spec = contract.checks(), contract.load_spec()
    whole = RunOptions(profile=profile)
    run_each: list[str] = []
    judged: list[str] = []
    for index in (1, 2, 3):
        shard = planned(Shard(index, 3), checks, list(spec.rules), profile)
        options = replace(whole, shard=shard)
        run_each += [check.id for check in selected(checks, options)]
        judged += [rule.id for rule in spec.rules.values() if rule_selected(rule, options)]
    assert sorted(run_each) == sorted(check.id for check in selected(checks, whole))
    assert sorted(judged) == sorted(spec.rules)


@pytest.mark.parametrize("name", registry.names())
def test_the_quick_shards_are_balanced_by_their_number_of_checks(name: str) -> None:
    contract = contracts.contract(name)
    checks = [c for c in contract.checks().scripted.values() if c.profile == "quick"]
    parts = _plan_of(name, "quick", 3)
    per_shard = [sum(parts[check.rules[0]] == index for check in checks) for index in (1, 2, 3)]
    assert max(per_shard) - min(per_shard) <= 3, per_shard


def test_only_a_selection_is_split() -> None:
    contract = contracts.contract("mem")
    rules = [r.id for r in contract.load_spec().rules.values() if r.family in ("SAVE", "DEL")]
    parts = plan(contract.checks(), rules, "quick", 2)
    assert list(parts) == rules and set(parts.values()) == {1, 2}


def test_the_plan_is_the_same_in_another_process_with_another_hash_seed() -> None:
    script = (
        "from engram_conformance.conformance import contracts;"
        "from engram_conformance.conformance.sharding import plan;"
        "c = contracts.contract('engram-memory');"
        "print(plan(c.checks(), list(c.load_spec().rules), 'quick', 4))"
    )
    plans = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(plans) == 1
    assert plans.pop().strip() == str(_plan_of("engram-memory", "quick", 4))


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("0/3", "'0/3': the shard is counted from 1 to 3"),
        ("4/3", "'4/3': the shard is counted from 1 to 3"),
        ("a/b", "'a/b' is not I/N"),
        ("1/0", "'1/0': a run has 1 shard or more, not 0"),
        ("1/", "'1/' is not I/N"),
        ("1/1001", "'1/1001': a run has 1000 shards at most"),
        ("-1/3", "'-1/3' is not I/N"),
    ],
)
def test_a_bad_shard_is_one_line_and_exit_2(value: str, problem: str) -> None:
    result = CliRunner().invoke(
        main, ["run", "--reference", "--seed", "1", "--shard", value], standalone_mode=True
    )
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith("engram-conformance: Invalid value for '--shard':")
    assert problem.split(": ", 1)[-1] in line
    with pytest.raises(BadShard):
        Shard.parse(value)


def test_a_shard_without_a_seed_is_one_line_and_exit_2() -> None:
    result = CliRunner().invoke(main, ["run", "--reference", "--shard", "1/2"])
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert "'--shard': needs --seed" in line


def test_costs_of_an_earlier_run_balance_the_shards_by_seconds() -> None:
    """One slow check of its own group weighs as much as all the others: with the costs it is
    alone in its shard; by number of checks it is not."""
    contract = contracts.contract("mem")
    checks, rules = contract.checks(), list(contract.load_spec().rules)
    quick = [c for c in checks.scripted.values() if c.profile == "quick"]
    slow = next(c for c in quick if len(checks.of_rule()[c.rules[0]]) == 1 and len(c.rules) == 1)
    costs = {check.id: 1.0 for check in quick} | {slow.id: float(len(quick))}
    by_cost = plan(checks, rules, "quick", 2, costs)
    assert sum(by_cost[c.rules[0]] == by_cost[slow.rules[0]] for c in quick) == 1
    by_count = plan(checks, rules, "quick", 2)
    assert sum(by_count[c.rules[0]] == by_count[slow.rules[0]] for c in quick) > 1
    assert plan(checks, rules, "quick", 2, {}) == plan(checks, rules, "quick", 2, {"x": 3.0})


def test_shard_costs_need_a_shard_and_a_report_with_timing(tmp_path: Path) -> None:
    no_timing = small()
    del no_timing["run"]["timing"]
    bare, junk = tmp_path / "bare.json", tmp_path / "junk.json"
    bare.write_text(json.dumps(no_timing), encoding="utf-8")
    junk.write_text("[]", encoding="utf-8")
    cases = {
        ("--shard-costs", str(bare)): "balances shards: give --shard too",
        ("--shard", "1/2", "--shard-costs", str(bare)): "holds no timing",
        ("--shard", "1/2", "--shard-costs", str(junk)): "not a report",
    }
    for arguments, problem in cases.items():
        result = CliRunner().invoke(main, ["run", "--reference", "--seed", "1", *arguments])
        assert result.exit_code == 2, result.output
        (line,) = result.output.strip().splitlines()
        assert line.startswith("engram-conformance: Invalid value for '--shard-costs':")
        assert problem in line
