"""How ``engram-reference serve --contract engram-memory`` builds its server: the options of
the engram-memory contract's reference (the host's key, the host policy, the master key) and the
service and MCP wiring they make."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from engram_conformance.spec.engram_memory import load
from mcp.server.lowlevel import Server

from ..at_rest import UnsafeState
from .binding import HostBinding, HostKeyError, load_host_key
from .policy import DEFAULT_RETENTION_CEILING_S, HostPolicy
from .sealing import WrongKey
from .server import build_server
from .service import MemoryService

SPEC = load()
_RECORD_FIELDS = sorted(
    set(SPEC.schema("urn:engram-conformance:schema:record")["properties"]) - {"record_id"}
)


class Unusable(Exception):
    """The server cannot run with these options (the command says why, exit code 2)."""


UNUSABLE = Unusable
#: the serve options of this contract, outermost first (``engram-reference serve --help``)
OPTIONS = [
    click.option(
        "--master-key",
        type=click.Path(dir_okay=False, path_type=Path),
        help="The master key file, kept outside the state folder (created 0600 if missing; one "
        "others can read is refused) [default: STATE_DIR/master.key].",
    ),
    click.option(
        "--host-public-key",
        type=click.Path(exists=True, dir_okay=False, readable=True, path_type=Path),
        help="PEM file of the host's Ed25519 public key, which signs invocation contexts "
        "(required).",
    ),
    click.option("--retain-allowed", is_flag=True, help="The host permits derivative_rule retain."),
    click.option(
        "--retention-ceiling-s",
        type=click.IntRange(min=1),
        default=DEFAULT_RETENTION_CEILING_S,
        show_default=True,
        help="Latest retention.expires_at accepted, in seconds after capture.",
    ),
    click.option(
        "--confirmation-required",
        "confirmation_required",
        multiple=True,
        type=click.Choice(list(SPEC.tools)),
        help="A tool whose calls need a confirmation, beyond withdraw and forget (repeatable).",
    ),
    click.option(
        "--reconciliation-family",
        "reconciliation_families",
        multiple=True,
        help="A reconciliation family the host consents to (repeatable).",
    ),
    click.option(
        "--redact-field",
        "redacted_fields",
        multiple=True,
        type=click.Choice(_RECORD_FIELDS),
        help="A top-level record field hidden from search and get (repeatable).",
    ),
]
OPTION_NAMES = (
    "master_key",
    "host_public_key",
    "retain_allowed",
    "retention_ceiling_s",
    "confirmation_required",
    "reconciliation_families",
    "redacted_fields",
)


def build(
    state_dir: Path,
    *,
    master_key: Path | None,
    host_public_key: Path | None,
    retain_allowed: bool,
    retention_ceiling_s: int,
    confirmation_required: tuple[str, ...],
    reconciliation_families: tuple[str, ...],
    redacted_fields: tuple[str, ...],
) -> tuple[Server[Any], Callable[[], None]]:
    """The MCP server of the six memory tools on ``state_dir``, and what closes its store."""
    if host_public_key is None:
        raise Unusable("Missing option '--host-public-key'.")
    policy = HostPolicy(
        retain_allowed=retain_allowed,
        retention_ceiling_s=retention_ceiling_s,
        confirmation_required=frozenset(confirmation_required),
        reconciliation_families=frozenset(reconciliation_families),
        redacted_fields=frozenset(redacted_fields),
    )
    try:
        binding = HostBinding(load_host_key(host_public_key), spec=SPEC)
    except (HostKeyError, UnsafeState, OSError) as error:
        raise Unusable(str(error)) from None
    try:
        service = MemoryService(state_dir, policy, spec=SPEC, key_file=master_key)
    except (UnsafeState, WrongKey) as error:
        raise Unusable(str(error)) from None
    except (OSError, ValueError, sqlite3.Error) as error:
        raise Unusable(f"cannot use state folder {state_dir}: {error}") from None
    return build_server(service, binding, on_loop=True), service.close
