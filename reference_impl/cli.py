"""The ``engram-reference`` command: run the reference server over stdio or streamable HTTP.

``serve --contract NAME`` picks the protocol (default ``engram-memory``); each contract's own
options are listed with the shared ones, and one given to another contract's server is refused.
Bad input (a missing or non-Ed25519 key, a bad port, an unknown tool, a state folder that
cannot be made, an address in use) is one line on stderr and exit code 2. Logs go to stderr,
stdout being the protocol on stdio; they never quote arguments.
"""

from __future__ import annotations

import functools
import importlib
import ipaddress
import logging
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import click
from engram_conformance.spec import registry
from engram_conformance.spec.exiting import run_then_exit
from mcp.server.lowlevel import Server

from .at_rest import UnsafeState
from .http_token import TOKEN_FILE, BadToken, BearerToken
from .stdio import claim_standard_streams, stdio_streams
from .streamable_http import ENDPOINT, HttpLimits, bind, serve_http

PROG = "engram-reference"
EXIT_UNUSABLE = 2
EXIT_INTERRUPTED = 130

logger = logging.getLogger("engram_conformance.reference_impl")


def _serving() -> dict[str, Any]:
    """Contract -> how its server is built: ``OPTIONS`` (click options), ``OPTION_NAMES``,
    ``build(state_dir, **options) -> (server, close)`` and the ``UNUSABLE`` error it raises;
    for each contract of the kit's registry (``spec.registry``) that has a reference server."""
    found = {}
    for name in registry.names():
        module = registry.registration(name).serving
        if module is not None:
            found[name] = importlib.import_module(module)
    return found


#: read when the command is built, since its options are every contract's serve options
SERVING = _serving()


def contract_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Every contract's serve options, on ``serve``."""
    options = [option for module in SERVING.values() for option in module.OPTIONS]
    return functools.reduce(lambda decorated, option: option(decorated), reversed(options), command)


class Unusable(click.ClickException):
    """The server cannot run with what it was given."""

    exit_code = EXIT_UNUSABLE


@click.group(no_args_is_help=False)
@click.version_option(package_name="engram-conformance", prog_name=PROG)
def cli() -> None:
    """The reference servers of the contracts this kit knows (``serve --contract NAME``)."""


@cli.command()
@click.option(
    "--state-dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of the database and the master key (created 0700 if missing; one others "
    "can read is refused).",
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
    help="HTTP sessions open at once; beyond, the least recently used idle session ends to "
    "make room for a new one, which is refused (503) only when all are in use.",
)
@click.option(
    "--max-client-sessions",
    type=click.IntRange(min=1),
    default=HttpLimits.max_client_sessions,
    show_default=True,
    help="HTTP sessions one client (one address) holds at once; beyond, its least recently "
    "used idle session ends to make room.",
)
@click.option(
    "--session-unused-s",
    type=click.FloatRange(min=0, min_open=True),
    default=HttpLimits.session_unused_s,
    show_default=True,
    help="Seconds after which an HTTP session that served no request since it opened expires.",
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
@click.option(
    "--max-waiting-connections",
    type=click.IntRange(min=1),
    default=HttpLimits.max_waiting_connections,
    show_default=True,
    help="HTTP connections open with no request under way; beyond, the one that has waited "
    "longest is closed to make room.",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="HTTP: the file of the bearer token clients must send (Authorization: Bearer TOKEN), "
    f"made (0600) with a new token when missing; one others can read is refused "
    f"[default: STATE_DIR/{TOKEN_FILE}].",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="HTTP: require no token, so that every local user (and, bound to an address other "
    "than loopback, every host that reaches it) can call the server and read or delete its "
    "memories.",
)
@click.option("--verbose", is_flag=True, help="Log each call's tool, audit id and outcome.")
@contract_options
@click.option(
    "--contract",
    type=click.Choice(list(SERVING)),
    default=registry.DEFAULT,
    show_default=True,
    help="The protocol to serve.",
)
def serve(
    contract: str,
    state_dir: Path,
    transport: str,
    host: str,
    port: int,
    allowed_hosts: tuple[str, ...],
    max_sessions: int,
    max_client_sessions: int,
    session_unused_s: float,
    session_idle_s: float,
    read_timeout_s: float,
    max_waiting_connections: int,
    token_file: Path | None,
    no_auth: bool,
    verbose: bool,
    **options: Any,
) -> None:
    """Serve a contract's tools until the client closes stdio or the process is interrupted."""
    serving = SERVING[contract]
    given = click.get_current_context().get_parameter_source
    foreign = sorted(
        name
        for other, module in SERVING.items()
        if other != contract
        for name in module.OPTION_NAMES
        if given(name) == click.core.ParameterSource.COMMANDLINE
    )
    if foreign:
        given = ", ".join("--" + name.replace("_", "-") for name in foreign)
        raise Unusable(f"{given}: not an option of the {contract} contract's server")
    if no_auth and token_file is not None:
        raise Unusable("--no-auth and --token-file exclude each other")
    own = {name: options[name] for name in serving.OPTION_NAMES}
    try:
        server, close = serving.build(state_dir, **own)
    except serving.UNUSABLE as error:
        raise Unusable(str(error)) from None
    try:
        if transport == "stdio":
            _configure_logging(verbose)
            logger.info("serving on stdio")
            if anyio.run(_serve_stdio, server):
                raise KeyboardInterrupt  # exits EXIT_INTERRUPTED, as an interrupted command does
            return
        token_path = None if no_auth else token_file or state_dir / TOKEN_FILE
        token = None if token_path is None else _token(token_path)
        sock = _listening(host, port)
        _configure_logging(verbose)
        bound_port = sock.getsockname()[1]
        logger.info("serving streamable HTTP at http://%s:%d%s", host, bound_port, ENDPOINT)
        if token_path is None:
            logger.warning("no token required (--no-auth): %s can call this server", _open_to(host))
        else:
            logger.info("HTTP clients must send the bearer token in %s", token_path)
        limits = HttpLimits(
            read_timeout_s=read_timeout_s,
            max_sessions=max_sessions,
            max_client_sessions=max_client_sessions,
            session_idle_s=session_idle_s,
            session_unused_s=session_unused_s,
            max_waiting_connections=max_waiting_connections,
        )
        anyio.run(serve_http, server, sock, token, (host, *allowed_hosts), limits)
    finally:
        close()


def _open_to(host: str) -> str:
    """Who reaches a server bound to ``host`` that asks for no token. Bound to any other
    address than loopback, the Host check does not keep other hosts out: they may send a
    ``Host`` of ``localhost`` (attack round 6)."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name other than localhost: whatever it resolves to
        loopback = False
    return (
        "every local user" if loopback else f"every local user and every host that reaches {host}"
    )


def _token(path: Path) -> BearerToken:
    try:
        return BearerToken.in_file(path)
    except (UnsafeState, BadToken) as error:
        raise Unusable(str(error)) from None
    except OSError as error:
        raise Unusable(f"cannot use the token file {path}: {error.strerror or error}") from None


def _listening(host: str, port: int) -> socket.socket:
    try:
        return bind(host, port)
    except OSError as error:
        raise Unusable(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


async def _serve_stdio(server: Server[Any]) -> bool:
    """Serve until the input ends, or SIGINT (True). SIGINT cancels the server's own scope: the
    event loop's default answer, cancelling the main task, could be absorbed by a task group
    ending at that moment, and the server then ran on (a CI run, under load); it is caught even
    when the parent started the server with SIGINT ignored, as a background job is."""
    protocol_in, protocol_out = claim_standard_streams()
    interrupted = False
    async with anyio.create_task_group() as serving:

        async def stop_on_interrupt() -> None:
            nonlocal interrupted
            with anyio.open_signal_receiver(signal.SIGINT) as signals:
                async for _ in signals:
                    interrupted = True
                    serving.cancel_scope.cancel()
                    return

        serving.start_soon(stop_on_interrupt)
        async with stdio_streams(protocol_in, protocol_out) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        serving.cancel_scope.cancel()
    return interrupted


def _configure_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"{PROG} %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)


def console() -> None:
    """The console script (and ``python -m``): ``main``, its process ended at once
    (``spec.exiting``): the kit waits for a server's exit when it stops it."""
    run_then_exit(main)


def main(argv: Sequence[str] | None = None) -> None:
    """Click's errors become one line and exit code 2."""
    try:
        cli.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.ClickException as error:
        click.echo(f"{PROG}: {error.format_message()}", err=True)
        sys.exit(EXIT_UNUSABLE)
    except (click.Abort, KeyboardInterrupt):
        sys.exit(EXIT_INTERRUPTED)
