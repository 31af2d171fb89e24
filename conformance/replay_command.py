"""``engram-conformance replay TRANSCRIPT``: send a failure's calls again and show what differs."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import click
from engram_conformance.spec import load

from .bindings.signed_meta import ContextSigner
from .cli import EXIT_FAILED, EXIT_OK, EXIT_UNUSABLE, main
from .exceptions import ServerFault, StartupFailed
from .replay import Replayed, read_transcript, replay
from .session import Session
from .target_options import chosen_descriptor, launched, target_options
from .targets.descriptor import DescriptorError


@main.command("replay")
@click.argument("transcript", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@target_options
def replay_command(
    transcript: Path, target: Path | None, reference: bool, stdio: str | None, url: str | None
) -> None:
    """Re-send TRANSCRIPT's calls to a server; exit 0 if every answer matches, 1 if not."""
    try:
        descriptor = chosen_descriptor(target, reference, stdio, url)
        entries = read_transcript(transcript)
    except (DescriptorError, ValueError) as error:
        click.echo(f"engram-conformance: {error}", err=True)
        sys.exit(EXIT_UNUSABLE)
    signer = ContextSigner(load())

    async def go() -> list[Replayed]:
        with launched(descriptor, signer) as server:
            async with server.connect() as connection:
                session = Session(connection, descriptor.call_timeout_s)
                return await replay(session, signer, entries)

    try:
        done = anyio.run(go)
    except (StartupFailed, ServerFault) as error:
        click.echo(f"engram-conformance: {error}", err=True)
        sys.exit(EXIT_UNUSABLE)
    differing = [item for item in done if item.diff]
    for item in done:
        mark = "differs" if item.diff else "same"
        name = item.recorded.get("tool") or item.recorded["method"]
        click.echo(f"#{item.recorded['index']} {name}: {mark}")
        if item.diff:
            click.echo(item.diff)
    click.echo(f"{len(done)} calls replayed, {len(differing)} answered differently")
    sys.exit(EXIT_FAILED if differing else EXIT_OK)
