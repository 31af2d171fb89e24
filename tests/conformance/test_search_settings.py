"""The settings of the kit's searches (the generated check, the model checks): a failure found
is shrunk and kept, and not explained: Hypothesis's explain phase runs the example again with
its parts varied (each run of an example in a check is a round of calls to the server under
test) and under a line tracer, for text the kit never shows."""

from __future__ import annotations

from engram_conformance.conformance.bounded_search import quiet_settings
from hypothesis import Phase, given, settings
from hypothesis import strategies as st


def _runs_until_shrunk(bounds: settings) -> int:
    """How many times a test that fails for every integer from 10 on runs under ``bounds``."""
    runs = 0

    @bounds
    @given(st.integers(), st.text())
    def test(number: int, text: str) -> None:
        nonlocal runs
        runs += 1
        assert number < 10

    try:
        test()
    except AssertionError:
        return runs
    raise AssertionError("the search found no failing example")


def test_a_search_shrinks_its_failure_without_explaining_it() -> None:
    searched = quiet_settings(None, max_examples=50)
    assert Phase.shrink in searched.phases
    # Hypothesis's explain phase runs the shrunk example again with each part varied (here
    # some 80 more runs): the same search with it runs several times as often
    explained = settings(searched, phases=tuple(Phase))
    assert 3 * _runs_until_shrunk(searched) < _runs_until_shrunk(explained)
