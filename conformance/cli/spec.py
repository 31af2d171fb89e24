"""``engram-conformance spec lint / openapi / docs / diff``: work on a contract's machine-readable
spec."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from engram_conformance.spec import registry

from .. import contracts
from . import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE, main, subcommand
from .options import contract_option

SPEC_DIR = click.option(
    "--spec-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A spec folder to use instead of the one shipped with the kit.",
)
CONTRACT = contract_option("Whose spec.", default=registry.DEFAULT)


def _output(help: str) -> Callable[..., Any]:
    """The ``--output`` option of a command that writes a file."""
    return click.option(
        "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help=help
    )


@main.group()
def spec() -> None:
    """Work on the machine-readable spec."""


@spec.command()
@SPEC_DIR
@CONTRACT
@click.option(
    "--seed-text",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="the seed's Spanish text: every rule's quote must be found in it",
)
@subcommand
def lint(spec_dir: Path | None, contract: str, seed_text: Path | None) -> int:
    """Check the spec: meta-schemas, consistency, every example classified as labelled, every
    output constraint naming its rule, every must rule quoting the seed.

    Exit 0 when the spec is sound, 2 when a problem is found (each printed as file, JSON
    Pointer and problem).
    """
    plugin = contracts.contract(contract)
    root = spec_dir or plugin.spec_root
    try:
        seed = seed_text.read_text(encoding="utf-8") if seed_text is not None else None
    except (OSError, UnicodeDecodeError) as error:
        raise click.BadParameter(_unreadable(error), param_hint="'--seed-text'") from None
    problems = list(plugin.lint(root, seed))
    for problem in problems:
        click.echo(f"{root / problem.file}: at '{problem.pointer}': {problem.message}", err=True)
    if problems:
        click.echo(f"spec lint: {len(problems)} problem(s)", err=True)
        return EXIT_UNUSABLE
    click.echo(f"spec lint: ok ({plugin.spec_summary(plugin.load_spec(root))})")
    return EXIT_OK


@spec.command()
@SPEC_DIR
@CONTRACT
@_output("Write to this file instead of standard output.")
@subcommand
def openapi(spec_dir: Path | None, contract: str, output: Path | None) -> int:
    """The contract as an OpenAPI 3.1 document (one POST operation per tool), for Schemathesis."""
    plugin = contracts.contract(contract)
    try:
        document = plugin.openapi(plugin.load_spec(spec_dir))
    except plugin.spec_file_error as error:
        click.echo(f"spec openapi: {error}", err=True)
        return EXIT_UNUSABLE
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        _write(output, text)
    return EXIT_OK


@spec.command()
@SPEC_DIR
@CONTRACT
@_output(
    "Where to write [default: the contract's page in docs/, docs/contract.md for engram-memory]."
)
@click.option("--check", is_flag=True, help="Exit 1 if OUTPUT differs from what would be written.")
@subcommand
def docs(spec_dir: Path | None, contract: str, output: Path | None, check: bool) -> int:
    """Write the Markdown reference of the contract, generated from the spec."""
    plugin = contracts.contract(contract)
    output = output or Path(plugin.docs_page)
    try:
        text = plugin.markdown(plugin.load_spec(spec_dir))
    except plugin.spec_file_error as error:
        click.echo(f"spec docs: {error}", err=True)
        return EXIT_UNUSABLE
    if not check:
        _write(output, text)
        return EXIT_OK
    try:
        current = output.read_text(encoding="utf-8") if output.exists() else None
    except (OSError, UnicodeDecodeError) as error:
        raise click.BadParameter(_unreadable(error), param_hint="'--output'") from None
    if current != text:
        click.echo(f"{output} is stale: run engram-conformance spec docs", err=True)
        return EXIT_FAILED
    click.echo(f"{output} is up to date")
    return EXIT_OK


def _unreadable(error: OSError | UnicodeDecodeError) -> str:
    if isinstance(error, UnicodeDecodeError):
        return "is not UTF-8 text"
    return f"cannot be read: {error.strerror or error}"


def _write(output: Path, text: str) -> None:
    """Write ``text`` to ``output`` (its folder made if missing); a path that cannot be written
    is bad input, one line and exit code 2."""
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        problem = f"{str(output)!r} cannot be written: {error.strerror or error}"
        raise click.BadParameter(problem, param_hint="'--output'") from None
    click.echo(f"wrote {output}")


@spec.command("diff")
@click.argument("old", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("new", type=click.Path(exists=True, file_okay=False, path_type=Path))
@CONTRACT
@subcommand
def diff_command(old: Path, new: Path, contract: str) -> int:
    """Compare two versions of the contract's spec folder: rules and tools added, removed or
    changed."""
    from ..spec_diff import spec_diff

    plugin = contracts.contract(contract)
    try:
        loaded = [plugin.load_spec(folder) for folder in (old, new)]
    except plugin.spec_file_error as error:
        click.echo(f"spec diff: {error}", err=True)
        return EXIT_UNUSABLE
    click.echo(spec_diff(*loaded), nl=False)
    return EXIT_OK
