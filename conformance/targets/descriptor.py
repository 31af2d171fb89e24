"""Target descriptors: a TOML file, validated against its schema, turned into typed values.

Every mistake is reported as a ``DescriptorError`` naming the file, the key (dotted) and the
problem, with a "did you mean" for a misspelt key.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator

SCHEMA = json.loads(Path(__file__).with_name("descriptor.schema.json").read_text(encoding="utf-8"))
ALL_TOOLS = tuple(SCHEMA["properties"]["policy"]["properties"]["tools"]["items"]["enum"])


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
class Policy:
    """What the deployment under test promises, so that checks know what to expect."""

    admission: str = "accept-clean"
    rejects_secrets: bool = True
    retain_allowed: bool = False
    retention_ceiling_s: int = 2_592_000
    confirmation_required: frozenset[str] = frozenset()
    reconciliation_families: frozenset[str] = frozenset()
    redacted_fields: frozenset[str] = frozenset()
    semantic_channel: bool = False
    tools: tuple[str, ...] = ALL_TOOLS


@dataclass(frozen=True)
class TargetDescriptor:
    name: str
    transport: Literal["stdio", "http"]
    command: tuple[str, ...] = ()
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    startup_timeout_s: float = 30.0
    call_timeout_s: float = 10.0
    binding_mode: str = "signed-meta"
    binding_env: dict[str, str] = field(default_factory=dict)
    binding_headers: dict[str, str] = field(default_factory=dict)
    policy: Policy = field(default_factory=Policy)
    state_files: tuple[str, ...] = ()
    source: str | None = None

    @classmethod
    def from_mapping(cls, data: dict[str, Any], source: str) -> TargetDescriptor:
        errors = sorted(
            Draft202012Validator(SCHEMA).iter_errors(data), key=lambda e: list(e.absolute_path)
        )
        if errors:
            raise _worded(errors[0], source)
        server = data["server"]
        binding = data.get("binding", {})
        policy = data.get("policy", {})
        return cls(
            name=data["name"],
            transport=server["transport"],
            command=tuple(server.get("command", ())),
            url=server.get("url"),
            env=dict(server.get("env", {})),
            startup_timeout_s=float(server.get("startup_timeout_s", 30)),
            call_timeout_s=float(server.get("call_timeout_s", 10)),
            binding_mode=binding.get("mode", "signed-meta"),
            binding_env=dict(binding.get("env", {})),
            binding_headers=dict(binding.get("headers", {})),
            policy=Policy(
                admission=policy.get("admission", "accept-clean"),
                rejects_secrets=policy.get("rejects_secrets", True),
                retain_allowed=policy.get("retain_allowed", False),
                retention_ceiling_s=policy.get("retention_ceiling_s", 2_592_000),
                confirmation_required=frozenset(policy.get("confirmation_required", ())),
                reconciliation_families=frozenset(policy.get("reconciliation_families", ())),
                redacted_fields=frozenset(policy.get("redacted_fields", ())),
                semantic_channel=policy.get("semantic_channel", False),
                tools=tuple(policy.get("tools", ALL_TOOLS)),
            ),
            state_files=tuple(data.get("state", {}).get("files", ())),
            source=source,
        )


def load_descriptor(path: Path) -> TargetDescriptor:
    """Read and validate a descriptor file; DescriptorError on any problem."""
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise DescriptorError(source, "", f"cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise DescriptorError(source, "", "is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise DescriptorError(source, "", f"is not valid TOML: {error}") from None
    return TargetDescriptor.from_mapping(data, source)


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
