"""What the mem machine needs of whoever sends its calls (a ``Driver``).

The machine is synchronous and knows nothing of transports nor of answer formats: the driver
makes an example's projects, sends each call as asked (answered, its answer lost and the call
sent again, or sent several times at once) and hands back what the answer says as a ``Reply``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

#: How a save is delivered: answered; sent, its answer lost and the call sent again; or sent
#: ``AT_ONCE`` times at once.
Delivery = Literal["answered", "answer lost", "sent at once"]
DELIVERIES: tuple[Delivery, ...] = ("answered", "answer lost", "sent at once")
AT_ONCE = 3


@dataclass(frozen=True)
class ExampleProject:
    """A project made for an example, and its open session (None: the server names its
    sessions itself, so the machine cannot name it)."""

    name: str
    session: str | None


@dataclass(frozen=True)
class Hit:
    """A memory a search or ``mem_get_observation`` shows (counters: None for a search hit)."""

    id: int
    title: str
    type: str
    scope: str
    content: str | None = None
    revision_count: int | None = None
    duplicate_count: int | None = None
    session_id: str | None = None


@dataclass(frozen=True)
class Reply:
    """What one answer says: whether the call succeeded (not ``isError``), the id it names
    (None where the server says none), the memories it shows (a search's hits, the one of
    ``mem_get_observation``), the titles a context shows; ``answer`` is the answer as read, the
    evidence of a violation."""

    ok: bool
    answer: Any
    id: int | None = None
    hits: tuple[Hit, ...] = ()
    titles: tuple[str, ...] = ()
    #: the session a session tool's answer names
    session: str | None = None


class Driver(Protocol):
    #: how long after a memory's creation a repeat of its save is absorbed (seconds)
    dedupe_window_s: float
    #: the name of the flag that makes ``mem_delete`` delete for good (the server's schema)
    hard_flag: str
    #: whether the server lists ``mem_get_observation``, by which the machine reads one
    #: memory's fields and counters (seed 003 names no such tool: without it, the machine
    #: judges what saves, searches and contexts show)
    reads_back: bool

    def begin(self) -> tuple[ExampleProject, ExampleProject] | None:
        """Two projects no one used, each with a session started, for a new example; None when
        no example may start (the example is rejected; the harness's driver ends the search
        instead, ``bounded_search.SearchOver``)."""

    def unique(self, label: str) -> str:
        """A token nobody used (also a distinctive search term)."""

    def call(self, tool: str, arguments: dict[str, Any]) -> Reply:
        """``tool``'s answer to ``arguments``."""

    def retry_after_lost_answer(self, tool: str, arguments: dict[str, Any]) -> Reply:
        """Send the call, drop its answer (the request is abandoned, whether or not the server
        performed it), then send it again: the second answer."""

    def at_once(self, tool: str, arguments: dict[str, Any], times: int) -> list[Reply]:
        """The answers of ``times`` identical calls in flight together."""

    def now(self) -> float:
        """The driver's clock (``time.monotonic()``), for the dedupe window."""

    def step(self, description: str) -> None:
        """The example's next step begins."""

    def passed(self, rule: str) -> None:
        """An expectation of ``rule`` held."""

    def violated(self, rule: str, expected: str, observed: Any) -> None:
        """An expectation of ``rule`` broke (a ``Violation`` is raised next)."""
