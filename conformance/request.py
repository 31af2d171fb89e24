"""One request object for every front end: ``engram-conformance run``, ``replay``, the pytest
plugin and the library API (reproductions, benchmarks) each say what they want as a
``RunRequest``, and ``prepare`` turns it into what a run needs (``ready``, when the server may
be asked which contract it speaks on the run's own first connection), or one ``Unusable``
problem that each front end words its own way (a CLI line and exit 2, a pytest usage error).

Nothing here knows a command-line option; ``targets.choice.NotOneTarget`` is left to the front
ends, which name their own target options.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engram_conformance.spec.registry import BadRegistration, UnknownContract

from .baseline import Baseline, BaselineError
from .contracts import Contract, every_settings
from .launching import chosen_contract, claims_only_tools_of, run_launched, run_recognising
from .ledger import Reproduction
from .runner import Progress, RunOptions, RunResult, rule_selected
from .sharding import Shard, planned
from .side_by_side import WIDTH
from .targets import eras
from .targets.choice import named_descriptor
from .targets.descriptor import DescriptorError, TargetDescriptor
from .targets.launch import LaunchedTarget


class Unusable(Exception):
    """The run cannot be made with what was asked (a bad descriptor, baseline or selection, a
    contract no plug-in has); the message says why in one line."""


class UnknownSelection(Unusable):
    """``only`` names nothing, or a rule or family the contract's spec does not know."""


@dataclass(frozen=True, kw_only=True)
class RunRequest:
    """What a front end asks: a target by one name (``targets.choice``: ``{"descriptor":
    PATH}``, ``{"reference": CONTRACT}``, ``{"stdio": COMMAND_LINE}`` or ``{"url": URL}``),
    or a descriptor built in code, the contract it speaks (None: the descriptor's, else the one
    ``tools/list`` shows), and the run's options."""

    target: Mapping[str, str] | TargetDescriptor
    contract: str | None = None
    profile: str = "quick"
    #: rules and families, each once (empty: every rule)
    only: tuple[str, ...] = ()
    seed: int | None = None
    budget_s: float | None = None
    baseline: Path | None = None
    example_db: Path | None = None
    example: Reproduction | None = None
    recheck: bool = True
    #: stop starting checks once a must rule fails
    exitfirst: bool = False
    #: the MCP protocol era to speak (``eras.REQUESTS``); None: the descriptor's
    era: str | None = None
    #: the part of the run to make (its plan is made for the contract: ``sharding.planned``)
    shard: Shard | None = None
    #: check -> seconds (an earlier run's), to balance the shards by; None: by number of checks
    shard_costs: Mapping[str, float] | None = None
    #: how many checks run at once (``side_by_side``; 1: one after another)
    width: int = WIDTH
    #: check -> seconds (an earlier run's): checks side by side start the longest first
    check_costs: Mapping[str, float] | None = None


@dataclass(frozen=True)
class PreparedRun:
    """A request made ready: the target's descriptor, the contract, its spec, the run's options
    and the known failures."""

    descriptor: TargetDescriptor
    contract: Contract[Any]
    spec: Any
    options: RunOptions
    baseline: Baseline | None


def descriptor_of(request: RunRequest) -> TargetDescriptor:
    """The request's target descriptor; Unusable for a bad one (NotOneTarget passes)."""
    if isinstance(request.target, TargetDescriptor):
        descriptor = request.target
    else:
        try:
            descriptor = named_descriptor(request.target, every_settings())
        except (DescriptorError, UnknownContract, BadRegistration) as error:
            raise Unusable(str(error)) from None
    if request.era is None:
        return descriptor
    if request.era not in eras.REQUESTS:
        raise Unusable(f"{request.era!r} is no MCP era to run in ({', '.join(eras.REQUESTS)})")
    return replace(descriptor, era=request.era)


def prepare(request: RunRequest) -> PreparedRun:
    """Everything a run needs, checked before any check runs: Unusable says what is wrong;
    StartupFailed and Interrupted come from the server asked which contract it speaks (when
    nothing names the contract: ``ready`` then spares the second start)."""
    descriptor = descriptor_of(request)
    try:
        contract = chosen_contract(descriptor, request.contract)
    except (DescriptorError, UnknownContract, BadRegistration) as error:
        raise Unusable(str(error)) from None
    return prepared_for(request, descriptor, contract)


def ready(request: RunRequest) -> PreparedRun | RunRequest:
    """The request prepared (``prepare``) when something names its contract; else the request
    with its descriptor made (Unusable for a bad one), to be prepared on the run's first
    connection (``run_request``), so that the server is started once."""
    descriptor = descriptor_of(request)
    request = replace(request, target=descriptor)
    if request.contract is None and descriptor.contract is None:
        return request
    return prepare(request)


def run_request(
    request: PreparedRun | RunRequest, progress: Progress | None = None
) -> tuple[PreparedRun, RunResult, LaunchedTarget]:
    """Run a ``ready`` request: the run as prepared, the result and the target it ran against.
    Unusable once the contract is found (a bad baseline or selection for it), StartupFailed
    and Interrupted as ``launching.run_launched``."""
    if isinstance(request, PreparedRun):
        run = request.contract, request.spec, request.descriptor, request.options
        result, server = run_launched(*run, progress)
        return request, result, server
    descriptor = descriptor_of(request)
    settle = functools.partial(prepared_for, request, descriptor)
    return run_recognising(descriptor, settle, progress)


def prepared_for(
    request: RunRequest, descriptor: TargetDescriptor, contract: Contract[Any]
) -> PreparedRun:
    """The request made ready for ``contract``: its spec, the known failures, the options;
    Unusable for what does not fit the contract (a claimed tool it has not, a baseline of
    another contract, a rule or family its spec does not know)."""
    try:
        claims_only_tools_of(contract, descriptor)
        spec = contract.load_spec()
        baseline = (
            Baseline.load(request.baseline, set(spec.rules), contract.name)
            if request.baseline is not None
            else None
        )
    except (DescriptorError, BaselineError) as error:
        raise Unusable(str(error)) from None
    options = RunOptions(
        profile=request.profile,
        only=selection(request.only, spec),
        seed=request.seed,
        budget_s=request.budget_s,
        example_db=request.example_db,
        example=request.example,
        recheck=request.recheck,
        exitfirst=request.exitfirst,
        width=request.width,
        costs=request.check_costs,
    )
    if request.shard is not None:
        rules = [rule.id for rule in spec.rules.values() if rule_selected(rule, options)]
        checks = contract.checks()
        shard = planned(request.shard, checks, rules, options.profile, request.shard_costs)
        options = replace(options, shard=shard)
    return PreparedRun(descriptor, contract, spec, options, baseline)


def selection(only: tuple[str, ...], spec: Any) -> tuple[str, ...]:
    """The rules and families ``only`` names, each once, in order; UnknownSelection for a name
    the spec does not know (with the likeliest meant one)."""
    wanted = tuple(dict.fromkeys(only))
    known = [*dict.fromkeys(rule.family for rule in spec.rules.values()), *spec.rules]
    for name in wanted:
        if name not in known:
            close = [n for n in known if n == name.upper()] or difflib.get_close_matches(
                name, known, n=1
            )
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UnknownSelection(f"{name!r} is no rule or family of the spec{hint}")
    return wanted
