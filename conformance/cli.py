"""The ``engram-conformance`` command."""

from __future__ import annotations

import errno
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from . import contracts, replay_command, rules_command, run_command
from .exit_codes import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE

PROG = "engram-conformance"
SPEC_DIR = click.option(
    "--spec-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A spec folder to use instead of the one shipped with the kit.",
)
CONTRACT = click.option(
    "--contract",
    type=click.Choice(contracts.names()),
    default=contracts.DEFAULT,
    show_default=True,
    help="Whose spec.",
)


class _OneLineErrors(click.Group):
    """The command group whose bad input (an unknown option, a value out of range, a missing
    file) is one line on stderr, ``engram-conformance: ...``, and exit code 2: what CI logs
    show, and what the commands' own errors look like."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.ClickException as error:
            click.echo(f"{PROG}: {_one_line(error)}", err=True)
            sys.exit(EXIT_UNUSABLE)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_FAILED)
        except OSError as error:  # the reader of stdout went away (| head): stop quietly
            if error.errno != errno.EPIPE:
                raise
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_FAILED)
        sys.exit(code if isinstance(code, int) else EXIT_OK)


def _one_line(error: click.ClickException) -> str:
    message = " ".join(error.format_message().split())
    context = getattr(error, "ctx", None)
    if isinstance(error, click.UsageError) and context is not None:
        message = f"{message.rstrip('.')} (see '{context.command_path} --help')"
    return message


@click.group(cls=_OneLineErrors)
@click.version_option(package_name="engram-conformance")
def main() -> None:
    """Conformance kit for the Engram memory MCP contract."""
    # The SDK logs the faults of a misbehaving server with tracebacks; the harness reports them
    # as verdicts with evidence instead.
    logging.getLogger("mcp").setLevel(logging.CRITICAL)
    # the SDK's client session logs as "client" (a tool it cannot judge, not listed on a page)
    logging.getLogger("client").setLevel(logging.CRITICAL)


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
def lint(spec_dir: Path | None, contract: str, seed_text: Path | None) -> None:
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
        sys.exit(EXIT_UNUSABLE)
    click.echo(f"spec lint: ok ({plugin.spec_summary(plugin.load_spec(root))})")


@spec.command()
@SPEC_DIR
@CONTRACT
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file instead of standard output.",
)
def openapi(spec_dir: Path | None, contract: str, output: Path | None) -> None:
    """The contract as an OpenAPI 3.1 document (one POST operation per tool), for Schemathesis."""
    plugin = contracts.contract(contract)
    try:
        document = plugin.openapi(plugin.load_spec(spec_dir))
    except plugin.spec_file_error as error:
        click.echo(f"spec openapi: {error}", err=True)
        sys.exit(EXIT_UNUSABLE)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    _write(output, text)


@spec.command()
@SPEC_DIR
@CONTRACT
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write [default: the contract's page in docs/, docs/contract.md for "
    "engram-memory].",
)
@click.option("--check", is_flag=True, help="Exit 1 if OUTPUT differs from what would be written.")
def docs(spec_dir: Path | None, contract: str, output: Path | None, check: bool) -> None:
    """Write the Markdown reference of the contract, generated from the spec."""
    plugin = contracts.contract(contract)
    output = output or Path(plugin.docs_page)
    try:
        text = plugin.markdown(plugin.load_spec(spec_dir))
    except plugin.spec_file_error as error:
        click.echo(f"spec docs: {error}", err=True)
        sys.exit(EXIT_UNUSABLE)
    if check:
        try:
            current = output.read_text(encoding="utf-8") if output.exists() else None
        except (OSError, UnicodeDecodeError) as error:
            raise click.BadParameter(_unreadable(error), param_hint="'--output'") from None
        if current != text:
            click.echo(f"{output} is stale: run engram-conformance spec docs", err=True)
            sys.exit(EXIT_FAILED)
        click.echo(f"{output} is up to date")
        return
    _write(output, text)


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


main.add_command(replay_command.replay_command)
main.add_command(rules_command.rules_command)
main.add_command(run_command.run_command)
