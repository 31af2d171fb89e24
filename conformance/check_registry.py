"""What a contract's checks are to the runner: scripted checks and per-call checks, registered by
decorators into the dictionaries a contract's plug-in keeps (``registrars``).

A check's id is its function name, unique within its contract. A scripted check needs the
``tools`` it names (absent ones make its rules not applicable or not testable) and runs in the
``quick`` profile unless it says ``full``. The runner runs checks side by side, each in scopes of
its own; a check whose judgement needs the server to itself (a timing rule's latency, a search
in threads of its own) says ``alone=True`` and runs with no other check's calls in flight; one
that spends its time waiting (for an expiry, a window, server processes to start) says
``waits=True`` and is started first, so that its wait overlaps the others' calls. A per-call
check judges every answer of the run, one ``per_call_context.PerCallContext`` each: both kinds
take one context.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal

from .per_call_context import PerCallContext

#: ``function(ctx)``: a scripted check, given its contract's context (a ``BaseContext``)
CheckFunction = Callable[[Any], Awaitable[None]]
#: ``function(ctx)``: called for every answer of the run, with the call it judges
PerCallFunction = Callable[[PerCallContext], None]
Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
#: ``requires(policy)``: why a target promising ``policy`` leaves a check nothing to test
#: (its rules are then not applicable, the check not run), or None
Requirement = Callable[[Any], str | None]


@dataclass(frozen=True)
class Check:
    id: str
    rules: tuple[str, ...]
    tools: tuple[str, ...]
    profile: Literal["quick", "full"]
    function: CheckFunction
    #: why the target's policy (its contract's value) leaves the check nothing to test, or
    #: None when it may run; None: it may always run
    requires: Requirement | None
    #: whether it needs the server to itself: no other check's calls in flight while it runs
    alone: bool = False
    #: whether it spends its time waiting (an expiry, a window, processes starting): started
    #: before the checks that only call, side by side with them
    waits: bool = False

    @property
    def family(self) -> str:
        return self.rules[0].split("-")[0]

    def runs_in(self, profile: str) -> bool:
        """Whether a run of ``profile`` makes it: a full-profile check waits for the full one."""
        return not (profile == "quick" and self.profile == "full")


@dataclass(frozen=True)
class PerCall:
    id: str
    rules: tuple[str, ...]
    function: PerCallFunction
    #: the scripted checks whose calls it judges when only its rules are selected
    provoked_by: tuple[str, ...]


@dataclass(frozen=True)
class Checks:
    """A contract's checks, by id: what one run chooses from."""

    scripted: dict[str, Check]
    per_call: dict[str, PerCall]

    def in_order(self, families: Sequence[ModuleType]) -> Checks:
        """The same checks in their run order, scripted and per-call alike: by their family
        module's place in ``families``, then as written in it, whatever order the modules were
        imported in. ValueError names a module whose checks have no place (a family left out
        of the order)."""
        place = {module.__name__: index for index, module in enumerate(families)}
        every: list[Check | PerCall] = [*self.scripted.values(), *self.per_call.values()]
        unplaced = sorted({check.function.__module__ for check in every} - set(place))
        if unplaced:
            raise ValueError(f"checks of modules not in the run order: {', '.join(unplaced)}")

        def in_place(check: Check | PerCall) -> int:
            return place[check.function.__module__]

        return Checks(
            {check.id: check for check in sorted(self.scripted.values(), key=in_place)},
            {check.id: check for check in sorted(self.per_call.values(), key=in_place)},
        )

    def of_rule(self) -> dict[str, list[str]]:
        """Rule -> the ids of the checks that decide it, scripted first."""
        found: dict[str, list[str]] = {}
        every: list[Check | PerCall] = [*self.scripted.values(), *self.per_call.values()]
        for check in every:
            for rule in check.rules:
                found.setdefault(rule, []).append(check.id)
        return found


def family_modules(package: str, names: Sequence[str]) -> tuple[ModuleType, ...]:
    """The family modules ``names`` of ``package``, imported (which registers their checks),
    in the order given: a contract's run order (``Checks.in_order``)."""
    return tuple(importlib.import_module(f"{package}.{name}") for name in names)


def registrars(
    scripted: dict[str, Check], per_call: dict[str, PerCall], *, provoker: str
) -> tuple[Callable[..., Decorator], Callable[..., Decorator]]:
    """The ``@check(...)`` and ``@per_call(...)`` decorators that register into these
    dictionaries; a per-call check is provoked by the ``provoker`` check unless it says."""

    def check(
        *,
        rules: tuple[str, ...],
        tools: tuple[str, ...] = (),
        profile: Literal["quick", "full"] = "quick",
        requires: Requirement | None = None,
        alone: bool = False,
        waits: bool = False,
    ) -> Decorator:
        def register(function: CheckFunction) -> CheckFunction:
            name = _new_name(function, rules, scripted, per_call)
            scripted[name] = Check(
                name, tuple(rules), tuple(tools), profile, function, requires, alone, waits
            )
            return function

        return register

    def per_call_check(
        *, rules: tuple[str, ...], provoked_by: tuple[str, ...] = (provoker,)
    ) -> Decorator:
        """A run that selects only some of its rules also runs the ``provoked_by`` checks, so
        that it has answers to judge; its context's ``memory`` is a dict it keeps across one run's
        calls."""

        def register(function: PerCallFunction) -> PerCallFunction:
            name = _new_name(function, rules, scripted, per_call)
            per_call[name] = PerCall(name, tuple(rules), function, tuple(provoked_by))
            return function

        return register

    return check, per_call_check


def _new_name(function: Callable[..., Any], rules: tuple[str, ...], *taken: dict[str, Any]) -> str:
    name = function.__name__
    if any(name in names for names in taken):
        raise ValueError(f"check {name} is registered twice")
    if not rules:
        raise ValueError(f"check {name} names no rule")
    return name
