"""``run --shard I/N``: a run's rules split into N parts that CI jobs run apart, and a report of
each part that ``engram-conformance merge`` puts back together (``shard_merge``).

A part is made of whole groups: checks that share a rule, and the per-call checks' rules with
the checks that provoke the answers they judge (as ``--only`` runs them), are one group, so that
every rule is decided in one shard by every check that decides it in a single run (a per-call
rule on the answers of its shard's checks alone: a breach only another shard's answers show is
not its evidence, as with ``--only``). Rules no selected check decides (untestable ones) are
groups of their own. The plan depends only on the kit's registry and spec, the profile and
``--only``: never on the server, the machine or the seed, so that every job of a CI matrix
makes the same plan.

The kit declares no expected cost of a check, so the groups are balanced by their number of
checks (then of rules), or by the seconds each check took in an earlier run's report when one
is given (``--shard-costs``: the same file in every part, then, for the same plan): heaviest
first, each to the part with the least so far, the lower index on a tie.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .check_registry import Checks

#: More shards than a run has rules only makes empty ones.
MOST_SHARDS = 1000
_FORM = re.compile(r"([0-9]+)/([0-9]+)")


class BadShard(ValueError):
    """A ``--shard`` value that names no part of a run; the message says why in one line."""


@dataclass(frozen=True)
class Shard:
    """Part ``index`` (1-based) of ``count``, and the plan of the whole run: every rule of the
    run -> the part it belongs to, in the spec's order (empty until ``planned``)."""

    index: int
    count: int
    plan: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    def __post_init__(self) -> None:
        if self.count < 1:
            raise BadShard(f"{self.index}/{self.count}: a run has 1 shard or more, not 0")
        if self.count > MOST_SHARDS:
            raise BadShard(f"{self.index}/{self.count}: a run has {MOST_SHARDS} shards at most")
        if not 1 <= self.index <= self.count:
            raise BadShard(
                f"{self.index}/{self.count}: the shard is counted from 1 to {self.count}"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """The shard ``I/N`` names; BadShard for anything else."""
        form = _FORM.fullmatch(text.strip())
        if form is None:
            raise BadShard(f"{text!r} is not I/N, the shard I (from 1) of N, say 2/3")
        return cls(int(form[1]), int(form[2]))

    def owns(self, rule: str) -> bool:
        """Whether ``rule`` is decided in this part."""
        return self.plan.get(rule) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def planned(
    shard: Shard,
    checks: Checks,
    rules: Iterable[str],
    profile: str,
    costs: Mapping[str, float] | None = None,
) -> Shard:
    """``shard`` with the plan of a run of ``rules`` (in the spec's order) in ``profile``."""
    parts = plan(checks, rules, profile, shard.count, costs)
    return Shard(shard.index, shard.count, MappingProxyType(parts))


def plan(
    checks: Checks,
    rules: Iterable[str],
    profile: str,
    count: int,
    costs: Mapping[str, float] | None = None,
) -> dict[str, int]:
    """Every rule of ``rules`` -> its part (1..``count``), in the order of ``rules``; the
    groups weigh their number of checks, or with ``costs`` (check -> seconds, as an earlier
    run measured them) their checks' seconds, a check it did not measure the median's."""
    ordered = list(rules)
    weigh = _weigher(costs)
    weighed = [
        ((weigh(group_checks), len(group_rules)), group_rules)
        for group_checks, group_rules in _groups(checks, ordered, profile)
    ]
    load: list[tuple[float, int]] = [(0, 0)] * count  # (weight, rules) of each part so far
    part_of: dict[str, int] = {}
    for (weight, size), group_rules in sorted(weighed, key=lambda g: (-g[0][0], -g[0][1])):
        least = min(range(count), key=lambda index: load[index])
        load[least] = (load[least][0] + weight, load[least][1] + size)
        part_of.update(dict.fromkeys(group_rules, least + 1))
    return {rule: part_of[rule] for rule in ordered}


def _weigher(costs: Mapping[str, float] | None) -> Callable[[set[str]], float]:
    """What a group of checks weighs: their number, or their ``costs`` added."""
    if costs is None:
        return len
    known = sorted(costs.values())
    unknown = known[len(known) // 2] if known else 1.0
    return lambda group: sum(costs.get(check, unknown) for check in sorted(group))


def _groups(checks: Checks, rules: list[str], profile: str) -> list[tuple[set[str], list[str]]]:
    """The run's groups, each its checks and its rules, in the order of their first rule
    (``sorted`` keeps that order among groups of one size, which makes the plan stable)."""
    place = {rule: index for index, rule in enumerate(rules)}
    runs = {check.id: check for check in checks.scripted.values() if check.runs_in(profile)}
    joined = _Joined()
    for check in runs.values():
        for rule in check.rules:
            if rule in place:
                joined.join(f"rule:{rule}", f"check:{check.id}")
    for per_call in checks.per_call.values():
        judged = [rule for rule in per_call.rules if rule in place]
        for rule in judged:
            joined.join(f"rule:{judged[0]}", f"rule:{rule}")
            for provoker in per_call.provoked_by:
                if provoker in runs:
                    joined.join(f"rule:{rule}", f"check:{provoker}")
    members: dict[str, tuple[set[str], list[str]]] = {}
    for rule in rules:
        members.setdefault(joined.root(f"rule:{rule}"), (set(), []))[1].append(rule)
    for check_id in runs:
        group = members.get(joined.root(f"check:{check_id}"))
        if group is not None:  # a check of no rule of the run is in no group
            group[0].add(check_id)
    return list(members.values())


class _Joined:
    """Disjoint sets of names (union-find): ``join`` two, ``root`` names a set."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def root(self, name: str) -> str:
        parent = self.parent.setdefault(name, name)
        if parent != name:
            parent = self.parent[name] = self.root(parent)
        return parent

    def join(self, one: str, other: str) -> None:
        first, second = self.root(one), self.root(other)
        if first != second:
            self.parent[max(first, second)] = min(first, second)
