"""What an engram-memory target's descriptor promises: how it binds each call to its identity
(``[binding]``, DESIGN.md "Host binding") and the keys of ``[policy]`` this contract reads
(``descriptor_tables.schema.json``), as the frozen ``Policy`` its checks consult; and how the
launch then carries each identity to the target (``identities``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..targets.contract_tables import ContractSettings
from ..targets.identities import Identities

#: The parts of an identity the binding's templates may name (``{tenant}``, ...).
IDENTITY_CLAIMS = ("tenant", "workspace", "principal", "agent_id", "session", "purpose_ref")


class BindingMode(StrEnum):
    """How a target binds each call to its identity (DESIGN.md, "Host binding")."""

    SIGNED_META = "signed-meta"
    PROCESS_ENV = "process-env"
    HTTP_HEADERS = "http-headers"


@dataclass(frozen=True)
class Policy:
    """What the deployment under test promises, so that checks know what to expect."""

    binding_mode: BindingMode = BindingMode.SIGNED_META
    #: process-env: the environment (templated) that carries the binding
    binding_env: Mapping[str, str] = field(default_factory=dict)
    #: http-headers: the HTTP headers (templated) that carry the binding
    binding_headers: Mapping[str, str] = field(default_factory=dict)

    admission: str = "accept-clean"
    rejects_secrets: bool = True
    retain_allowed: bool = False
    retention_ceiling_s: int = 2_592_000
    confirmation_required: frozenset[str] = frozenset()
    reconciliation_families: frozenset[str] = frozenset()
    redacted_fields: frozenset[str] = frozenset()
    semantic_channel: bool = False


def parse(tables: Mapping[str, Any]) -> Policy:
    """The policy the descriptor's ``[binding]`` and ``[policy]`` give (validated), its
    defaults elsewhere."""
    policy = tables.get("policy", {})
    binding = tables.get("binding", {})
    default = Policy()
    return Policy(
        binding_mode=BindingMode(binding.get("mode", default.binding_mode)),
        binding_env=dict(binding.get("env", {})),
        binding_headers=dict(binding.get("headers", {})),
        admission=policy.get("admission", default.admission),
        rejects_secrets=policy.get("rejects_secrets", default.rejects_secrets),
        retain_allowed=policy.get("retain_allowed", default.retain_allowed),
        retention_ceiling_s=policy.get("retention_ceiling_s", default.retention_ceiling_s),
        confirmation_required=frozenset(policy.get("confirmation_required", ())),
        reconciliation_families=frozenset(policy.get("reconciliation_families", ())),
        redacted_fields=frozenset(policy.get("redacted_fields", ())),
        semantic_channel=policy.get("semantic_channel", default.semantic_channel),
    )


def identities(policy: Policy) -> Identities:
    """How the launch carries identities: signed-meta in each call's ``_meta`` (one client),
    process-env in the environment of a process per identity, http-headers in the headers of
    a session per identity."""
    return Identities(
        parts=IDENTITY_CLAIMS,
        per_client=policy.binding_mode != BindingMode.SIGNED_META,
        env=policy.binding_env if policy.binding_mode == BindingMode.PROCESS_ENV else {},
        headers=policy.binding_headers if policy.binding_mode == BindingMode.HTTP_HEADERS else {},
    )


SETTINGS: ContractSettings[Policy] = ContractSettings.from_schema_file(
    Path(__file__).with_name("descriptor_tables.schema.json"), parse, identities=identities
)
