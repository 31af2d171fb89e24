"""The lifecycle state machine: Hypothesis drives any server through a ``Driver``
(``machine_driver``), reads its answers with ``answers`` and compares every one with the model
of ``model``.

Every step is one rule: capture, request_admission, withdraw and forget (answered, with the
answer lost, or sent several times at once), reuses of earlier idempotency keys (replays and
conflicts), the confirmation gate, search, get and paging, and the same calls from another
tenant and another workspace on the owner's ids (``machine_writes``, ``machine_reads``).
After every step that may have written (all but the reads, which check what they read), the
owner's scope must reveal exactly the model's current records.
"""

from __future__ import annotations

from ..violations import Violation
from .machine_base import ACTORS, MachineBase
from .machine_driver import Approval, Driver
from .machine_reads import ReadRules
from .machine_writes import MutationRules

#: Every rule the machine decides.
RULES = (
    "IDEM-001",
    "IDEM-003",
    "IDEM-004",
    "IDEM-005",
    "IDEM-006",
    "IDEM-007",
    "IDEM-012",
    "IDEM-013",
    "IDEM-014",
    "IDEM-015",
    "SCOPE-001",
    "SCOPE-003",
    "SCOPE-004",
    "SCOPE-005",
    "SCOPE-006",
    "SEARCH-001",
    "SEARCH-002",
    "SEARCH-009",
    "PAGE-001",
    "PAGE-002",
    "PAGE-003",
    "LIFE-001",
    "LIFE-003",
    "LIFE-004",
    "LIFE-012",
    "LIFE-013",
    "LIFE-014",
    "LIFE-016",
    "LIFE-017",
    "GATE-001",
    "GATE-003",
    "GATE-004",
    "GATE-011",
    "GATE-012",
    "HOST-016",
)


class LifecycleMachine(MutationRules, ReadRules):
    """Every rule of both families, on one model."""


def lifecycle_machine(driver: Driver) -> type[MachineBase]:
    """The machine class, bound to ``driver``."""
    return type("LifecycleMachine", (LifecycleMachine,), {"driver": driver})


__all__ = ["ACTORS", "RULES", "Approval", "Violation", "lifecycle_machine"]
