"""What the lifecycle state machine needs of whoever sends its calls (a ``Driver``), and how it
asks them to be sent; what it reads of their answers is ``answers``.

The machine is synchronous and knows nothing of transports: the driver binds each call to an
actor's scope, attaches the confirmation asked for, and delivers it as asked (answered, its
answer lost and the call retried, or sent several times at once).
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from .answers import Answer

Approval = Literal["valid", "absent", "expired", "other_target", "other_operation"]
#: Confirmations that do not hold: none, an expired one, or one for another target or operation.
UNHELD: tuple[Approval, ...] = ("absent", "expired", "other_target", "other_operation")
#: How a mutation is delivered: answered; sent, its answer lost and the call retried with the
#: same key and arguments; or sent ``AT_ONCE`` times at once.
Delivery = Literal["answered", "answer lost", "sent at once"]
DELIVERIES: tuple[Delivery, ...] = ("answered", "answer lost", "sent at once")
AT_ONCE = 3


class Driver(Protocol):
    #: whether a call can carry a confirmation that does not hold (the binding sends one of the
    #: harness's choosing with each call)
    forges_confirmations: bool

    def begin(self) -> dict[str, tuple[str, str, str]] | None:
        """Fresh identities for a new example, actor -> (tenant, workspace, principal), for
        every actor of ``ACTORS``; None when no example may start (the example is rejected; the
        harness's driver ends the search instead, ``bounded_search.SearchOver``)."""

    def unique(self, label: str) -> str:
        """A token nobody used (also a distinctive search term)."""

    def capture_arguments(self, actor: str, text: str, key: str) -> dict[str, Any]:
        """Valid capture arguments whose content is ``text``, current now."""

    def purpose(self, actor: str) -> str:
        """The purpose_ref bound to ``actor``'s calls."""

    def call(self, actor: str, tool: str, arguments: dict[str, Any], approval: Approval) -> Answer:
        """One call bound to ``actor``. withdraw and forget carry a confirmation as
        ``approval`` says: one that holds, none, an expired one, or one for another target or
        operation."""

    def retry_after_lost_answer(self, actor: str, tool: str, arguments: dict[str, Any]) -> Answer:
        """Send the call, drop its answer (the request is abandoned, whether or not the server
        performed it), then send it again until the answer is not MUTATION_OUTCOME_UNKNOWN."""

    def at_once(self, actor: str, tool: str, arguments: dict[str, Any], times: int) -> list[Answer]:
        """``times`` identical calls in flight together, each retried while its answer is
        MUTATION_OUTCOME_UNKNOWN."""

    def step(self, description: str) -> None:
        """The example's next step begins."""

    def passed(self, rule: str) -> None:
        """An expectation of ``rule`` held."""

    def violated(self, rule: str, expected: str, observed: Any) -> None:
        """An expectation of ``rule`` broke (a ``Violation`` is raised next)."""
