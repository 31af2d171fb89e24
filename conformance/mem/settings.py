"""What a mem target's descriptor says: the dedupe window it was started with (``[policy]
dedupe_window_s``) and where its own answer forms hold each fact (``[answers.<tool>]``), as
``descriptor_tables.schema.json`` allows them, read into the frozen ``Policy`` of a run."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..targets.contract_tables import ContractSettings

#: the prefix of a declared pattern (any other declaration is a JSON Pointer)
PATTERN = "re:"


@dataclass(frozen=True)
class Policy:
    """What a mem target's descriptor declares."""

    #: how long the server absorbs a repeated save, when it was started with a window of its
    #: own; None: the contract's default (15 minutes)
    dedupe_window_s: float | None = None
    #: where the server's own answer forms hold each fact field: (tool, field, JSON Pointer or
    #: ``re:`` pattern)
    answers: tuple[tuple[str, str, str], ...] = ()


def parse(tables: Mapping[str, Any]) -> Policy:
    """The policy the descriptor's tables give (validated)."""
    return Policy(
        dedupe_window_s=tables.get("policy", {}).get("dedupe_window_s"),
        answers=tuple(
            (tool, name, source)
            for tool, fields in tables.get("answers", {}).items()
            for name, source in fields.items()
        ),
    )


def declaration_problem(tables: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first ``[answers]`` value that is neither a JSON Pointer nor a ``re:`` pattern with
    a group to read: its dotted key and why; else None."""
    for tool, fields in tables.get("answers", {}).items():
        for name, declared in fields.items():
            problem = _problem(declared)
            if problem:
                return f"answers.{tool}.{name}", problem
    return None


def _problem(declared: str) -> str | None:
    if declared.startswith(PATTERN):
        try:
            groups = re.compile(declared.removeprefix(PATTERN)).groups
        except re.error as error:
            return f"{declared!r} is no regular expression: {error}"
        return None if groups else f"{declared!r} has no group to read the value from"
    if not declared.startswith("/"):
        return f"{declared!r} is neither a JSON Pointer (/a/b) nor a pattern ({PATTERN}...)"
    return None


#: Engram's data folder variable set to the run's state folder, so that a mem server started by
#: its command alone keeps the run's memories there, never in its user's own store
#: (``~/.engram``)
STDIO_ENV = {"ENGRAM_DATA_DIR": "{state_dir}"}

SETTINGS: ContractSettings[Policy] = ContractSettings.from_schema_file(
    Path(__file__).with_name("descriptor_tables.schema.json"),
    parse,
    problem=declaration_problem,
    stdio_env=STDIO_ENV,
)
