"""What an engram-memory target's descriptor promises: the keys of ``[policy]`` this contract
reads (``descriptor_tables.schema.json``), as the frozen ``Policy`` its checks consult."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..targets.contract_tables import ContractSettings

_SCHEMA = json.loads(
    Path(__file__).with_name("descriptor_tables.schema.json").read_text(encoding="utf-8")
)


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


def parse(tables: Mapping[str, Any]) -> Policy:
    """The policy the descriptor's ``[policy]`` gives (validated), its defaults elsewhere."""
    policy = tables.get("policy", {})
    default = Policy()
    return Policy(
        admission=policy.get("admission", default.admission),
        rejects_secrets=policy.get("rejects_secrets", default.rejects_secrets),
        retain_allowed=policy.get("retain_allowed", default.retain_allowed),
        retention_ceiling_s=policy.get("retention_ceiling_s", default.retention_ceiling_s),
        confirmation_required=frozenset(policy.get("confirmation_required", ())),
        reconciliation_families=frozenset(policy.get("reconciliation_families", ())),
        redacted_fields=frozenset(policy.get("redacted_fields", ())),
        semantic_channel=policy.get("semantic_channel", default.semantic_channel),
    )


SETTINGS: ContractSettings[Policy] = ContractSettings(tables=_SCHEMA["properties"], parse=parse)
