"""Target descriptors: a TOML file, validated against its schema, turned into typed values.

Every mistake is reported as a ``DescriptorError`` naming the file, the key (dotted) and the
problem, with a "did you mean" for a misspelt key.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import shlex
import tomllib
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from engram_conformance.spec import registry
from jsonschema import Draft202012Validator

from .contract_tables import ContractSettings, composed, contract_tables
from .eras import AUTO

SCHEMA = json.loads(Path(__file__).with_name("descriptor.schema.json").read_text(encoding="utf-8"))
#: A descriptor string's placeholder (``{port}``, ``{env[NAME]}``), filled in at launch.
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@dataclass
class DescriptorError(Exception):
    """A descriptor that cannot be used: the file, the dotted key, and what is wrong."""

    file: str
    key: str
    problem: str

    def __str__(self) -> str:
        where = f" at {self.key}" if self.key else ""
        return f"{self.file}{where}: {self.problem}"


@dataclass(frozen=True)
class TargetDescriptor:
    name: str
    transport: Literal["stdio", "http"]
    command: tuple[str, ...] = ()
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    #: HTTP headers every request carries (templated), for every identity: say a credential
    headers: dict[str, str] = field(default_factory=dict)
    #: the folder the server starts in (placeholders filled; ``{work_dir}`` is an empty folder
    #: of the run); None: the harness's working folder
    cwd: str | None = None
    startup_timeout_s: float = 30.0
    call_timeout_s: float = 10.0
    #: the MCP protocol era the run speaks (``eras.REQUESTS``): ``auto``, an era, or ``both``
    era: str = AUTO
    #: the tools the target claims (``[policy] tools``); None: the contract's default claim
    #: once the server's tools are listed
    claim: tuple[str, ...] | None = None
    #: the tables only contracts read (``[policy]`` without ``tools``, their own tables),
    #: as validated: the run's contract parses them into its policy (``ContractSettings``)
    tables: Mapping[str, Any] = field(default_factory=dict)
    state_files: tuple[str, ...] = ()
    source: str | None = None
    #: the contract the descriptor names (``[contract] name``); None: ``tools/list`` decides
    contract: str | None = None
    #: the name it was made from (``targets.choice``), by which a reproduction makes it again:
    #: {"descriptor": its file's full path}, {"reference": contract}, {"stdio": command line}
    #: or {"url": URL}; None for one built in code, which nothing can name again
    origin: dict[str, str] | None = None

    @classmethod
    def from_mapping(
        cls, data: dict[str, Any], source: str, settings: Iterable[ContractSettings[Any]] = ()
    ) -> TargetDescriptor:
        """The descriptor ``data`` holds, validated against the core's schema and the tables
        of the contracts ``settings`` gives (every registered contract's, as
        ``contracts.every_settings`` gives them: a table none of them knows is refused)."""
        settings = tuple(settings)
        _no_infinite_number(data, source, ())
        schema = composed(SCHEMA, settings)
        errors = sorted(
            Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.absolute_path)
        )
        if errors:
            raise _worded(errors[0], source)
        _sound_values(data, source)
        tables = contract_tables(data, SCHEMA["properties"])
        for each in settings:
            if wrong := each.problem(tables):
                raise DescriptorError(source, *wrong)
        server = data["server"]
        policy = data.get("policy", {})
        return cls(
            name=data["name"],
            transport=server["transport"],
            command=tuple(server.get("command", ())),
            url=server.get("url"),
            env=dict(server.get("env", {})),
            headers=dict(server.get("headers", {})),
            cwd=server.get("cwd"),
            startup_timeout_s=float(server.get("startup_timeout_s", 30)),
            call_timeout_s=float(server.get("call_timeout_s", 10)),
            era=server.get("era", AUTO),
            claim=tuple(policy["tools"]) if "tools" in policy else None,
            tables=tables,
            state_files=tuple(data.get("state", {}).get("files", ())),
            source=source,
            contract=data.get("contract", {}).get("name"),
        )


def stdio_descriptor(
    command_line: str, settings: Iterable[ContractSettings[Any]]
) -> TargetDescriptor:
    """The target ``--stdio COMMAND_LINE`` names (default policy), started in the harness's
    folder (so that a relative path in the command works), with the environment each contract
    of ``settings`` gives a server started by its command alone (``ContractSettings.stdio_env``:
    the run's contract is not known yet); DescriptorError for a blank or unparsable command
    line."""
    try:
        command = tuple(shlex.split(command_line))
    except ValueError as error:
        problem = f"{command_line!r} is not a command line: {error}"
        raise DescriptorError("--stdio", "", problem) from None
    if not command or not command[0].strip():
        raise DescriptorError("--stdio", "", f"{command_line!r} names no command to run")
    env = {name: value for each in settings for name, value in each.stdio_env.items()}
    return TargetDescriptor(name=command_line, transport="stdio", command=command, env=env)


def url_descriptor(url: str) -> TargetDescriptor:
    """The target ``--url URL`` names (default policy); DescriptorError for what is no http(s)
    URL."""
    problem = url_problem(url)
    if problem:
        raise DescriptorError("--url", "", f"{url!r} {problem}")
    return TargetDescriptor(name=url, transport="http", url=url)


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot reach a streamable HTTP server, as a predicate ("is not an http(s)
    URL: it names no host"), or None."""
    if not url or any(char.isspace() or not char.isprintable() for char in url):
        return "is not an http(s) URL: it is empty or holds whitespace"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number in range
    except ValueError as error:
        return f"is not an http(s) URL: {error}"
    if parts.scheme.lower() not in ("http", "https"):
        return "is not an http(s) URL (http://HOST[:PORT]/PATH)"
    if not parts.hostname:
        return "is not an http(s) URL: it names no host"
    return None


def load_descriptor(path: Path, settings: Iterable[ContractSettings[Any]]) -> TargetDescriptor:
    """Read and validate a descriptor file (``from_mapping``); DescriptorError on any
    problem."""
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise DescriptorError(source, "", f"cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise DescriptorError(source, "", "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise DescriptorError(source, "", f"is not valid TOML: {error}") from None
    return TargetDescriptor.from_mapping(data, source, settings)


def _no_infinite_number(value: Any, source: str, key: tuple[str, ...]) -> None:
    """TOML writes ``nan`` and ``inf``; no descriptor value may be one (a NaN timeout would
    pass every bound of the schema)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise DescriptorError(source, ".".join(key), f"{value} is not a finite number")
    if isinstance(value, dict):
        for name, item in value.items():
            _no_infinite_number(item, source, (*key, str(name)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _no_infinite_number(item, source, (*key, str(index)))


def _sound_values(data: dict[str, Any], source: str) -> None:
    """What the schema does not say: a name and a program that are more than blanks, a URL
    that can reach a server."""
    if not data["name"].strip():
        raise DescriptorError(source, "name", "is blank")
    contract = data.get("contract", {}).get("name")
    if contract is not None and contract not in (known := registry.names()):
        known = ", ".join(known)
        raise DescriptorError(
            source, "contract.name", f"{contract!r} is no contract this kit knows ({known})"
        )
    server = data["server"]
    command = server.get("command")
    if command and not command[0].strip():
        raise DescriptorError(source, "server.command.0", "the program to run is blank")
    url = server.get("url")
    if url is not None:
        # a placeholder ({port}, {env[HOST]}) is filled in at launch: judge the URL around it
        problem = url_problem(_PLACEHOLDER.sub("0", url))
        if problem:
            raise DescriptorError(source, "server.url", f"{url!r} {problem}")


def _worded(error: Any, source: str) -> DescriptorError:
    key = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        unknown = [k for k in error.instance if k not in allowed]
        name = unknown[0]
        close = difflib.get_close_matches(name, allowed, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (known keys: {', '.join(allowed)})"
        return DescriptorError(source, f"{key}.{name}" if key else name, f"unknown key{hint}")
    if error.validator == "required":
        missing = next(k for k in error.validator_value if k not in error.instance)
        return DescriptorError(source, f"{key}.{missing}" if key else missing, "is required")
    if error.validator == "not":
        return DescriptorError(source, key, _transport_problem(error.instance))
    return DescriptorError(source, key, error.message)


def _transport_problem(server: Any) -> str:
    if isinstance(server, dict) and server.get("transport") == "stdio":
        return "a stdio server needs 'command' and no 'url'"
    return "an http server needs 'url'"
