"""The ``engram-reference`` command: run the reference server over stdio or streamable HTTP.

Bad input (a missing or non-Ed25519 key, a bad port, an unknown tool, a state folder that
cannot be made, an address in use) is one line on stderr and exit code 2. Logs go to stderr,
stdout being the protocol on stdio; they never quote arguments.
"""

from __future__ import annotations

import logging
import socket
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import click
from engram_conformance.spec.engram_memory import load
from mcp.server.lowlevel import Server

from .at_rest import UnsafeState
from .engram_memory.binding import HostBinding, HostKeyError, load_host_key
from .engram_memory.policy import DEFAULT_RETENTION_CEILING_S, HostPolicy
from .engram_memory.sealing import WrongKey
from .engram_memory.server import build_server
from .engram_memory.service import MemoryService
from .stdio import claim_standard_streams, stdio_streams
from .streamable_http import ENDPOINT, HttpLimits, bind, serve_http

PROG = "engram-reference"
EXIT_UNUSABLE = 2
EXIT_INTERRUPTED = 130

logger = logging.getLogger("engram_conformance.reference_impl")
_SPEC = load()
_RECORD_FIELDS = sorted(
    set(_SPEC.schema("urn:engram-conformance:schema:record")["properties"]) - {"record_id"}
)


class Unusable(click.ClickException):
    """The server cannot run with what it was given."""

    exit_code = EXIT_UNUSABLE


@click.group(no_args_is_help=False)
@click.version_option(package_name="engram-conformance", prog_name=PROG)
def cli() -> None:
    """The reference server of the Engram memory MCP contract."""


@cli.command()
@click.option(
    "--state-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of the database and the master key (created 0700 if missing; one others "
    "can read is refused).",
)
@click.option(
    "--master-key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The master key file, kept outside the state folder (created 0600 if missing; one "
    "others can read is refused) [default: STATE_DIR/master.key].",
)
@click.option(
    "--host-public-key",
    required=True,
    type=click.Path(exists=True, dir_okay=False, readable=True, path_type=Path),
    help="PEM file of the host's Ed25519 public key, which signs invocation contexts.",
)
@click.option("--stdio", "transport", flag_value="stdio", default=True, help="Serve on stdio.")
@click.option(
    "--http", "transport", flag_value="http", help=f"Serve streamable HTTP at {ENDPOINT}."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP listening address.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="HTTP port; 0 takes a free one. The address served is logged on stderr.",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    multiple=True,
    help="A host name clients reach the HTTP server by, beyond its address and localhost "
    "(repeatable); other Host headers are refused (DNS-rebinding protection).",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    default=HttpLimits.max_sessions,
    show_default=True,
    help="HTTP sessions open at once; beyond, a new session is refused (503).",
)
@click.option(
    "--session-idle-s",
    type=click.FloatRange(min=0, min_open=True),
    default=HttpLimits.session_idle_s,
    show_default=True,
    help="Seconds after which an idle HTTP session expires.",
)
@click.option(
    "--read-timeout-s",
    type=click.FloatRange(min=0, min_open=True),
    default=HttpLimits.read_timeout_s,
    show_default=True,
    help="Seconds an HTTP client may take to send a request's head, or its body.",
)
@click.option("--retain-allowed", is_flag=True, help="The host permits derivative_rule retain.")
@click.option(
    "--retention-ceiling-s",
    type=click.IntRange(min=1),
    default=DEFAULT_RETENTION_CEILING_S,
    show_default=True,
    help="Latest retention.expires_at accepted, in seconds after capture.",
)
@click.option(
    "--confirmation-required",
    "confirmation_required",
    multiple=True,
    type=click.Choice(list(_SPEC.tools)),
    help="A tool whose calls need a confirmation, beyond withdraw and forget (repeatable).",
)
@click.option(
    "--reconciliation-family",
    "reconciliation_families",
    multiple=True,
    help="A reconciliation family the host consents to (repeatable).",
)
@click.option(
    "--redact-field",
    "redacted_fields",
    multiple=True,
    type=click.Choice(_RECORD_FIELDS),
    help="A top-level record field hidden from search and get (repeatable).",
)
@click.option("--verbose", is_flag=True, help="Log each call's tool, audit id and outcome.")
def serve(
    state_dir: Path,
    master_key: Path | None,
    host_public_key: Path,
    transport: str,
    host: str,
    port: int,
    allowed_hosts: tuple[str, ...],
    max_sessions: int,
    session_idle_s: float,
    read_timeout_s: float,
    retain_allowed: bool,
    retention_ceiling_s: int,
    confirmation_required: tuple[str, ...],
    reconciliation_families: tuple[str, ...],
    redacted_fields: tuple[str, ...],
    verbose: bool,
) -> None:
    """Serve the six memory tools until the client closes stdio or the process is interrupted."""
    policy = HostPolicy(
        retain_allowed=retain_allowed,
        retention_ceiling_s=retention_ceiling_s,
        confirmation_required=frozenset(confirmation_required),
        reconciliation_families=frozenset(reconciliation_families),
        redacted_fields=frozenset(redacted_fields),
    )
    try:
        binding = HostBinding(load_host_key(host_public_key), spec=_SPEC)
    except (HostKeyError, OSError) as error:
        raise Unusable(str(error)) from None
    try:
        service = MemoryService(state_dir, policy, spec=_SPEC, key_file=master_key)
    except (UnsafeState, WrongKey) as error:
        raise Unusable(str(error)) from None
    except (OSError, ValueError, sqlite3.Error) as error:
        raise Unusable(f"cannot use state folder {state_dir}: {error}") from None
    try:
        sock = _listening(host, port) if transport == "http" else None
        _configure_logging(verbose)
        server = build_server(service, binding)
        if sock is None:
            logger.info("serving on stdio")
            anyio.run(_serve_stdio, server)
        else:
            bound_port = sock.getsockname()[1]
            logger.info("serving streamable HTTP at http://%s:%d%s", host, bound_port, ENDPOINT)
            limits = HttpLimits(
                read_timeout_s=read_timeout_s,
                max_sessions=max_sessions,
                session_idle_s=session_idle_s,
            )
            anyio.run(serve_http, server, sock, (host, *allowed_hosts), limits)
    finally:
        service.close()


def _listening(host: str, port: int) -> socket.socket:
    try:
        return bind(host, port)
    except OSError as error:
        raise Unusable(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


async def _serve_stdio(server: Server[Any]) -> None:
    protocol_in, protocol_out = claim_standard_streams()
    async with stdio_streams(protocol_in, protocol_out) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _configure_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG} %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the console script: click's errors become one line and exit code 2."""
    try:
        cli.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.ClickException as error:
        click.echo(f"{PROG}: {error.format_message()}", err=True)
        sys.exit(EXIT_UNUSABLE)
    except (click.Abort, KeyboardInterrupt):
        sys.exit(EXIT_INTERRUPTED)
