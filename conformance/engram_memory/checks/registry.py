"""The check registry: ``@check(rules=..., tools=...)`` registers one async check function.

A check's id is its function name. It needs the ``tools`` it names (absent ones make its rules
not applicable or not testable) and runs in the ``quick`` profile unless it says ``full``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

CheckFunction = Callable[[Any], Awaitable[None]]


@dataclass(frozen=True)
class Check:
    id: str
    rules: tuple[str, ...]
    tools: tuple[str, ...]
    profile: Literal["quick", "full"]
    function: CheckFunction
    binding: str | None  # the binding mode the check needs, if any

    @property
    def family(self) -> str:
        return self.rules[0].split("-")[0]


REGISTRY: dict[str, Check] = {}


def check(
    *,
    rules: tuple[str, ...],
    tools: tuple[str, ...] = (),
    profile: Literal["quick", "full"] = "quick",
    binding: str | None = None,
) -> Callable[[CheckFunction], CheckFunction]:
    def register(function: CheckFunction) -> CheckFunction:
        name = function.__name__
        if name in REGISTRY:
            raise ValueError(f"check {name} is registered twice")
        if not rules:
            raise ValueError(f"check {name} names no rule")
        REGISTRY[name] = Check(name, tuple(rules), tuple(tools), profile, function, binding)
        return function

    return register


def all_checks() -> dict[str, Check]:
    """Every registered check (the package imports the family modules, which registers them)."""
    return dict(REGISTRY)


#: Per-call checks: run on every observation of every check (envelope shape, error catalogue).
PerCallFunction = Callable[[Any, Any, Callable[..., bool], dict[str, Any]], None]


@dataclass(frozen=True)
class PerCall:
    id: str
    rules: tuple[str, ...]
    function: PerCallFunction
    #: the scripted checks whose calls it judges when only its rules are selected
    provoked_by: tuple[str, ...]


PER_CALL: dict[str, PerCall] = {}
#: A scripted check that calls every tool on its success path and on a failure path.
EVERY_TOOL = "every_tool_answers_envelopes"


def per_call(
    *, rules: tuple[str, ...], provoked_by: tuple[str, ...] = (EVERY_TOOL,)
) -> Callable[[PerCallFunction], PerCallFunction]:
    """Register ``function(spec, observation, expect, memory)``, called for every answer.

    ``memory`` is a dict the function keeps across the calls of one run. A run that selects
    only some of its rules also runs the ``provoked_by`` checks, so that it has answers to judge.
    """

    def register(function: PerCallFunction) -> PerCallFunction:
        name = function.__name__
        if name in PER_CALL or name in REGISTRY:
            raise ValueError(f"check {name} is registered twice")
        PER_CALL[name] = PerCall(name, tuple(rules), function, tuple(provoked_by))
        return function

    return register


def all_per_call() -> dict[str, PerCall]:
    return dict(PER_CALL)
