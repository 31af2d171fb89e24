"""The host policy the reference server runs with (the target descriptor's ``[policy]``)."""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_RETENTION_CEILING_S = 30 * 24 * 3600


@dataclass(frozen=True)
class HostPolicy:
    """What the deployment promises: admission, retention, confirmation and redaction rules."""

    retain_allowed: bool = False
    retention_ceiling_s: int = DEFAULT_RETENTION_CEILING_S
    #: tools beyond withdraw and forget whose calls need a confirmation that holds
    confirmation_required: frozenset[str] = field(default_factory=frozenset)
    #: reconciliation families the host consents to; any other is UNAUTHORIZED
    reconciliation_families: frozenset[str] = field(default_factory=frozenset)
    #: top-level record fields removed from what search and get return
    redacted_fields: frozenset[str] = field(default_factory=frozenset)
