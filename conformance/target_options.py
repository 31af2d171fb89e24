"""The target options shared by ``run`` and ``replay``: exactly one way to reach a server."""

from __future__ import annotations

import contextlib
import functools
import secrets
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import click
from engram_conformance.spec.engram_memory import Spec

from .engram_memory.host import Host
from .engram_memory.signed_meta import ContextSigner
from .interruption import until_interrupted
from .runner import Progress, RunOptions, RunResult, run
from .targets.descriptor import (
    TargetDescriptor,
    load_descriptor,
    stdio_descriptor,
    url_descriptor,
)
from .targets.launch import LaunchedTarget, Workspace
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
    ]
    return functools.reduce(lambda decorated, option: option(decorated), reversed(options), command)


def chosen_descriptor(
    target: Path | None, reference: bool, stdio: str | None, url: str | None
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
        return reference_descriptor()
    if stdio is not None:
        return stdio_descriptor(stdio)
    return url_descriptor(str(url))


@contextlib.contextmanager
def launched(descriptor: TargetDescriptor, signer: ContextSigner) -> Iterator[LaunchedTarget]:
    """The descriptor's target in a scratch workspace (state folder, host key), removed after."""
    with tempfile.TemporaryDirectory(prefix="engram-conformance-") as scratch:
        root = Path(scratch)
        workspace = Workspace(root, signer.write_public_key(root / "host-public-key.pem"))
        yield LaunchedTarget(descriptor, workspace)


def run_launched(
    spec: Spec, descriptor: TargetDescriptor, options: RunOptions, progress: Progress | None = None
) -> tuple[RunResult, LaunchedTarget]:
    """Start the descriptor's target (``launched``), run the checks ``options`` select against
    it as a host with a fresh key, stop it; the result, and the target it ran against. Raises
    StartupFailed when the server would not start."""
    signer = ContextSigner(spec)
    host = Host(spec, signer, secrets.token_hex(3))
    with launched(descriptor, signer) as server:
        work = functools.partial(run, server, spec, descriptor.policy, host, options, progress)
        return anyio.run(until_interrupted, work), server
