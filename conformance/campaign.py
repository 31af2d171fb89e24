"""A fuzz campaign as a model check's search sees it: where the examples go, how long and how
many, and what the search did.

``engram-conformance fuzz`` runs a contract's model check in each of its worker processes with a
``Campaign`` installed (``running``). ``machine_search.search`` then explores the state machine
under HypoFuzz's coverage-guided backend (Hypothesis' ``backend="hypofuzz"``), with the
campaign's database and bounds in place of the check's own, and tells the campaign how many
examples it began and at which one it first met a failure. Hypothesis tries the failures the
database holds before anything new, so a run on a database that holds one meets it first.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from hypothesis import settings
from hypothesis.database import ExampleDatabase

#: What Hypothesis is told when only the time bounds a campaign (it needs a number).
UNBOUNDED_EXAMPLES = 10**9


@dataclass
class Campaign:
    """One round of a campaign in one worker: its bounds, and what its search did."""

    database: ExampleDatabase
    #: when no new example may start (``time.monotonic()``)
    stop_at: float
    #: how many examples the search may begin, replays of stored failures and shrinking
    #: included (None: as many as the time allows)
    examples: int | None
    #: examples the search began (failures replayed and shrinking included)
    examples_run: int = 0
    #: the number of the example that first broke the model, if one did
    first_failure_at: int | None = None

    def settings(self, bounds: settings) -> settings:
        """The check's own ``bounds`` (steps per example, quiet printing) with the campaign's
        database and the HypoFuzz backend; Hypothesis may generate as many examples as the
        campaign may begin (the search stops beginning them at its bound)."""
        # registers the backend with Hypothesis, as HypoFuzz's plugin does where plugins load
        # (the kit's executable loads none: ``cli.import_hypothesis_without_plugins``)
        import hypofuzz.entrypoint  # noqa: F401

        examples = UNBOUNDED_EXAMPLES if self.examples is None else self.examples
        return settings(bounds, database=self.database, backend="hypofuzz", max_examples=examples)

    def searched(self, examples_run: int, first_failure_at: int | None) -> None:
        self.examples_run += examples_run
        if self.first_failure_at is None:
            self.first_failure_at = first_failure_at


_CURRENT: ContextVar[Campaign | None] = ContextVar("engram_conformance_campaign", default=None)


def current() -> Campaign | None:
    """The campaign the search runs in, if any."""
    return _CURRENT.get()


@contextmanager
def running(campaign: Campaign) -> Iterator[Campaign]:
    """Searches started inside (in this context, and the tasks and threads it starts) run as
    ``campaign``."""
    token = _CURRENT.set(campaign)
    try:
        yield campaign
    finally:
        _CURRENT.reset(token)
