"""The options the commands share: the target options of ``run`` and ``replay`` (exactly one
way to reach a server), and the splitting of repeatable, comma-separated values."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from .. import contracts
from ..targets import choice
from ..targets.descriptor import TargetDescriptor


def target_options(command: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--target",
            type=click.Path(dir_okay=False, path_type=Path),
            help="A target descriptor (TOML).",
        ),
        click.option("--reference", is_flag=True, help="The bundled reference server."),
        click.option(
            "--stdio", metavar="CMD", help="A stdio server command line (default policy)."
        ),
        click.option("--url", metavar="URL", help="A streamable HTTP endpoint (default policy)."),
        click.option(
            "--contract",
            metavar="NAME",
            help=f"The contract the server speaks ({', '.join(contracts.names())}; default: the "
            "descriptor's, else the one tools/list shows).",
        ),
    ]
    return functools.reduce(lambda decorated, option: option(decorated), reversed(options), command)


def target_descriptor(
    target: Path | None,
    reference: bool,
    stdio: str | None,
    url: str | None,
    contract: str | None,
) -> TargetDescriptor:
    """The descriptor the target options name (``targets.choice.chosen_descriptor``); a usage
    error unless exactly one of them is given."""
    try:
        return choice.chosen_descriptor(target, reference, stdio, url, contract)
    except choice.NotOneTarget:
        message = "give exactly one of --target, --reference, --stdio, --url"
        raise click.UsageError(message) from None


def comma_separated(values: Iterable[str]) -> tuple[str, ...]:
    """The items of a repeatable option whose values may each list several, comma-separated
    (``--only ENV,ERR --only HOST``), stripped, blanks dropped."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())
