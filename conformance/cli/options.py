"""The options the commands share: the target options of ``run`` and ``replay`` (exactly one
way to reach a server), ``--contract``, and the splitting of repeatable, comma-separated
values."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click
from engram_conformance.spec import registry

from ..targets import choice


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
        contract_option(
            "The contract the server speaks (default: the descriptor's, else the one "
            "tools/list shows)."
        ),
    ]
    return functools.reduce(lambda decorated, option: option(decorated), reversed(options), command)


class ContractName(click.ParamType):
    """A registered contract's name. The registry is read when the option is shown or used,
    never at import, so that a contract registered after the import is accepted."""

    name = "contract"

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        return f"[{'|'.join(registry.names())}]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        known = registry.names()
        if value not in known:
            self.fail(f"{value!r} is no contract this kit knows ({', '.join(known)})", param, ctx)
        return str(value)


def contract_option(help: str, default: str | None = None) -> Callable[..., Any]:
    """``--contract NAME``, one of the registered contracts (``default``, if given, shown)."""
    return click.option(
        "--contract",
        type=ContractName(),
        default=default,
        show_default=default is not None,
        help=help,
    )


def target_name(
    target: Path | None,
    reference: bool,
    stdio: str | None,
    url: str | None,
    contract: str | None,
) -> dict[str, str]:
    """The target the options name (``targets.choice.target_name``); a usage error unless
    exactly one of them is given."""
    named = choice.target_name(target, reference, stdio, url, contract)
    if len(named) != 1:
        message = "give exactly one of --target, --reference, --stdio, --url"
        raise click.UsageError(message)
    return named


def comma_separated(values: Iterable[str]) -> tuple[str, ...]:
    """The items of a repeatable option whose values may each list several, comma-separated
    (``--only ENV,ERR --only HOST``), stripped, blanks dropped."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())
