"""The target options shared by ``run`` and ``replay``: exactly one way to reach a server."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import contracts
from .targets.descriptor import (
    TargetDescriptor,
    load_descriptor,
    stdio_descriptor,
    url_descriptor,
)
from .targets.reference import reference_descriptor


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


def chosen_descriptor(
    target: Path | None,
    reference: bool,
    stdio: str | None,
    url: str | None,
    contract: str | None = None,
) -> TargetDescriptor:
    """The descriptor the options name; DescriptorError for a bad file, a blank or unparsable
    ``--stdio`` command line, or a ``--url`` that is no http(s) URL."""
    # given is given, even empty: `--stdio ""` is a blank command line, not a missing option
    chosen = [x for x in (target, stdio, url) if x is not None] + ([True] if reference else [])
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --target, --reference, --stdio, --url")
    if target is not None:
        return load_descriptor(target)
    if reference:
        return reference_descriptor(contract or contracts.DEFAULT)
    if stdio is not None:
        return stdio_descriptor(stdio)
    return url_descriptor(str(url))
