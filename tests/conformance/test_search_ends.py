"""A bounded search ends as soon as its bound is met: Hypothesis starts one example more (the one
that finds no example may begin), not the hundreds of rejected ones it draws before it gives
up on its own (458, and a hundred for each example run) where it cannot tell that every new
example would be rejected: under HypoFuzz's backend, as a fuzz campaign runs it. Counted, not
timed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from engram_conformance.conformance.bounded_search import quiet_settings
from engram_conformance.conformance.campaign import Campaign
from engram_conformance.conformance.machine_search import MachineSearch, explore
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.stateful import RuleBasedStateMachine, rule


def counting_machine(driver: MachineSearch, started: list[int]) -> type[RuleBasedStateMachine]:
    """A machine whose examples begin as the harness's do (``example_begins``), each example
    Hypothesis starts counted in ``started``."""

    class Counting(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            started.append(1)
            driver.example_begins()

        @rule(value=st.integers())
        def step(self, value: int) -> None:
            driver.step(f"step {value}")

    return Counting


def searched(**bounds: Any) -> tuple[MachineSearch, int]:
    """A search of the counting machine under ``bounds`` (MachineSearch's attributes), with a
    fuzz campaign's settings: the driver, and how many examples Hypothesis started."""
    ctx: Any = SimpleNamespace(seed=1, session=SimpleNamespace(transcript=[]))
    driver = MachineSearch(ctx, stop_at=float("inf"), patience=10)
    for name, value in bounds.items():
        setattr(driver, name, value)
    started: list[int] = []
    campaign = Campaign(InMemoryExampleDatabase(), stop_at=float("inf"), examples=None)
    settings = campaign.settings(quiet_settings(None, stateful_step_count=3))
    explore(counting_machine(driver, started), driver, (), settings, None)
    return driver, len(started)


def test_a_search_that_may_begin_no_more_examples_ends_at_once() -> None:
    driver, started = searched(most_examples=25)
    assert (driver.examples, started, driver.fault) == (25, 26, None)


def test_a_search_out_of_time_ends_at_its_first_example() -> None:
    driver, started = searched(stop_at=0.0)
    assert (driver.examples, started, driver.fault) == (0, 1, None)
