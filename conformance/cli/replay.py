"""``engram-conformance replay TRANSCRIPT``: send a failure's calls again and show what differs."""

from __future__ import annotations

import functools
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import click

from ..exceptions import Interrupted, ServerFault, StartupFailed
from ..interruption import until_interrupted
from . import (
    EXIT_FAILED,
    EXIT_OK,
    import_hypothesis_without_plugins,
    main,
    stopped_by,
    subcommand,
    unusable,
)
from .options import target_name, target_options

if TYPE_CHECKING:  # the harness is imported when a replay starts, not for --help
    from ..request import PreparedRun
    from ..transcripts import Replayed


@main.command("replay")
@click.argument("transcript", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@target_options
@subcommand
def replay_command(
    transcript: Path,
    target: Path | None,
    reference: bool,
    stdio: str | None,
    url: str | None,
    contract: str | None,
) -> int:
    """Re-send TRANSCRIPT's calls to a server; exit 0 if every answer matches, 1 if not."""
    import_hypothesis_without_plugins()
    from ..request import RunRequest, Unusable, prepare
    from ..transcripts import read_transcript

    name = target_name(target, reference, stdio, url, contract)
    try:
        entries = read_transcript(transcript)
    except OSError as error:
        return unusable(f"{transcript}: cannot be read: {error.strerror or error}")
    except UnicodeDecodeError:
        return unusable(f"{transcript}: is not UTF-8 text")
    except ValueError as error:
        return unusable(f"{transcript}: is not a transcript (JSON lines): {error}")
    problem = _transcript_problem(entries)
    if problem:
        return unusable(f"{transcript}: is not a transcript: {problem}")
    try:
        prepared = prepare(RunRequest(target=name, contract=contract))
        done = anyio.run(until_interrupted, functools.partial(_replayed, prepared, entries))
    except (Unusable, StartupFailed, ServerFault) as error:
        return unusable(error)
    except Interrupted as stopped:
        return stopped_by(stopped)
    differing = [item for item in done if item.diff]
    for item in done:
        mark = "differs" if item.diff else "same"
        name = item.recorded.get("tool") or item.recorded["method"]
        click.echo(f"#{item.recorded['index']} {name}: {mark}")
        if item.diff:
            click.echo(item.diff)
    click.echo(f"{len(done)} calls replayed, {len(differing)} answered differently")
    return EXIT_FAILED if differing else EXIT_OK


async def _replayed(prepared: PreparedRun, entries: list[dict[str, Any]]) -> list[Replayed]:
    """The transcript's calls sent to the prepared target, as a host of its contract."""
    from ..launching import launched
    from ..session import Session

    contract = prepared.contract
    host = contract.host(prepared.spec, secrets.token_hex(3))
    with launched(prepared.descriptor, host, contract) as server:
        async with server.connect() as connection:
            session = Session(connection, prepared.descriptor.call_timeout_s)
            return list(await contract.replay(session, host, entries))


def _transcript_problem(entries: list[Any]) -> str | None:
    """Why ``entries`` are not the calls of a transcript (``document.write_transcripts``), or
    None: each is an object with its index, method and answer, a tools/call also with its tool
    and arguments, and its claims an object or null."""
    if not entries:
        return "it holds no call"
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            return f"call {number} is no JSON object"
        listing = entry.get("method") == "tools/list"
        needed = ["index", "method", "answer", *(() if listing else ("tool", "arguments"))]
        missing = [key for key in needed if key not in entry]
        if missing:
            return f"call {number} has no {', '.join(missing)}"
        if not isinstance(entry["method"], str) or not (listing or isinstance(entry["tool"], str)):
            return f"call {number} names its method or tool with no string"
        for key in ("claims", "meta"):
            if not isinstance(entry.get(key), dict | None):
                return f"call {number}: its {key} is no JSON object"
    return None
