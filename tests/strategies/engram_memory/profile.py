"""Hypothesis settings for the strategy tests: deterministic, modest, no example database."""

from __future__ import annotations

from engram_conformance.spec.engram_memory import load
from hypothesis import Phase, settings

TOOLS = sorted(load().tools)
CAPTURE = "engram_memory_capture"

#: Property tests: the same examples on every run, few enough for CI.
SETTINGS = settings(max_examples=50, deadline=None, derandomize=True, database=None)

#: ``find`` for an example with a property (a bound reached): generation only, since shrinking
#: a 64-component capture to the smallest one that still has 64 components takes long.
SEARCH = settings(SETTINGS, max_examples=1000, phases=[Phase.generate])

#: ``find`` whose answer is the shrunk example itself, not explained (the explain phase runs it
#: again with its parts varied and under a line tracer: the kit's searches do without it too).
SHRINK = settings(SETTINGS, max_examples=20, phases=[Phase.generate, Phase.shrink])

#: Hypothesis warns when it renders an example of more than 30 kB (a 65,536-byte text): that is
#: what these tests are about, and the project's pytest turns warnings into errors.
LARGE_REPR = "ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning"
