"""The mem lifecycle machine: Hypothesis drives a mem server through a ``Driver`` and compares
every answer with the model of ``model``.

Each example works in two fresh projects; every title and content holds the example's term and
a token of its own, so a search for the term finds the example's memories only, and a title
names the memory it belongs to. Steps: saves in either project and scope, with a topic key or
without (answered, or, without a key, with the answer lost and the call sent again, or sent
several times at once), repeats of an earlier save inside the dedupe window, updates, soft and
hard deletes, searches for the term with project, type and scope filters, ``mem_get_observation``,
``mem_context``, and the end of a project's session (writes name the open session of their
project). Each step judges what it reads against the rule whose statement it is.

What is not certain is not judged: a repeat is sent only while its memory is well inside the
dedupe window (``WINDOW_SHARE``), with its text unchanged; an example keeps at most
``LIVE_MOST`` live memories, below the default search limit (10) and context limit (20).
"""

from __future__ import annotations

from .driver import Driver
from .machine_base import MachineBase
from .machine_reads import ReadRules
from .machine_writes import WriteRules

#: Every rule the machine decides.
RULES = (
    "SAVE-001",
    "SAVE-003",
    "SAVE-006",
    "TOPIC-001",
    "TOPIC-010",
    "DEDUP-001",
    "DEDUP-007",
    "SCOPE-001",
    "SCOPE-002",
    "SCOPE-003",
    "SCOPE-004",
    "SCOPE-005",
    "SCOPE-006",
    "SRCH-001",
    "SRCH-004",
    "DEL-001",
    "DEL-002",
    "DEL-003",
    "DEL-006",
    "DEL-007",
    "UPD-001",
    "UPD-002",
    "UPD-004",
    "CTX-001",
    "SESS-003",
    "SESS-006",
)


class MemMachine(WriteRules, ReadRules):
    """Every rule, on one model."""


def mem_machine(driver: Driver) -> type[MachineBase]:
    """The machine class, bound to ``driver``."""
    return type("MemMachine", (MemMachine,), {"driver": driver})
