"""Checks declare their run order: each contract's ``families.RUN_ORDER`` places its family
modules, and ``Checks.in_order`` puts the scripted and the per-call checks in that order (then as
written in their module), whatever order the modules were imported in."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any

import pytest
from engram_conformance.conformance import contracts
from engram_conformance.conformance.check_registry import Check, Checks, PerCall, registrars


def written_in(module: ModuleType, name: str) -> Any:
    """A check function named ``name`` as if written in ``module``."""

    async def function(ctx: Any) -> None:
        return None

    function.__name__ = name
    function.__module__ = module.__name__
    return function


def registered_backwards() -> tuple[Checks, ModuleType, ModuleType]:
    """Checks of two families, the second family's registered (imported) first."""
    first, second = ModuleType("toy.checks.first"), ModuleType("toy.checks.second")
    scripted: dict[str, Check] = {}
    per_call: dict[str, PerCall] = {}
    check, per_call_check = registrars(scripted, per_call, provoker="a")
    for module, names in ((second, ("c", "d")), (first, ("a", "b"))):
        for name in names:
            check(rules=(f"R-{name}",))(written_in(module, name))
            per_call_check(rules=(f"P-{name}",))(written_in(module, f"every_{name}"))
    return Checks(scripted, per_call), first, second


def test_the_declared_order_wins_over_the_import_order() -> None:
    checks, first, second = registered_backwards()
    assert list(checks.scripted) == ["c", "d", "a", "b"]  # as imported
    ordered = checks.in_order([first, second])
    assert list(ordered.scripted) == ["a", "b", "c", "d"]
    assert list(ordered.per_call) == ["every_a", "every_b", "every_c", "every_d"]
    assert list(checks.in_order([second, first]).per_call) == [
        "every_c",
        "every_d",
        "every_a",
        "every_b",
    ]


def test_a_family_left_out_of_the_order_is_refused() -> None:
    checks, first, _second = registered_backwards()
    with pytest.raises(ValueError, match=r"not in the run order: toy\.checks\.second"):
        checks.in_order([first])
    only_per_call = Checks({}, checks.per_call)
    with pytest.raises(ValueError, match=r"not in the run order: toy\.checks\.second"):
        only_per_call.in_order([first])


@pytest.mark.parametrize("name", contracts.names())
def test_every_contract_runs_its_checks_in_its_declared_order(name: str) -> None:
    """The plug-in's checks come family by family in ``RUN_ORDER``'s order, the scripted and
    the per-call ones alike."""
    checks = contracts.contract(name).checks()
    modules = {
        c.function.__module__ for c in [*checks.scripted.values(), *checks.per_call.values()]
    }
    [package] = {module.rpartition(".")[0] for module in modules}
    place = {m.__name__: i for i, m in enumerate(import_module(f"{package}.families").RUN_ORDER)}
    for kind in (checks.scripted, checks.per_call):
        places = [place[check.function.__module__] for check in kind.values()]
        assert places == sorted(places), name
