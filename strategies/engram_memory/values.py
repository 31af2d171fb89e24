"""Valid arguments for every tool, generated from the tool's input schema.

``arguments(tool)`` draws a value keyword by keyword (``walk``), leaving placeholders where the
schema's ``x-crossReferences`` say a value refers to another, then makes it consistent with those
entries and ``x-clock`` (``consistency``). Sizes reach every bound
(a 65,536-byte text, 64 components, 256 citations) but shrink toward the smallest object (for
capture: one component citing one citation), and the whole object stays within the contract's
1 MiB argument limit.
"""

from __future__ import annotations

from typing import Any

from engram_conformance.spec.engram_memory import Spec, instant_ms, load
from hypothesis import strategies as st

from ..sizes import Budget, json_bytes
from .consistency import ClockWindow, make_consistent, with_placeholders
from .walk import LATEST_INSTANT_MS, draw_value

#: Values an ``x-clock`` ``after_now`` entry names (``expires_at``) lie after this instant by
#: default: far enough ahead that no run's clock reaches it.
FAR_FUTURE_MS = instant_ms("2100-01-01T00:00:00.000Z")
DEFAULT_CLOCK_WINDOW: ClockWindow = (FAR_FUTURE_MS, LATEST_INSTANT_MS)


def arguments(
    tool: str, spec: Spec | None = None, *, clock_window: ClockWindow = DEFAULT_CLOCK_WINDOW
) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects that ``validate_arguments`` accepts for ``tool``.

    ``clock_window`` is the (exclusive, inclusive) range of epoch milliseconds that values
    checked against the clock are drawn from; a caller bound by a retention ceiling narrows it
    to (now, now + ceiling).
    """
    spec = spec or load()
    return argument_objects(spec, tool, spec.contract["argument_max_bytes"], clock_window)


def argument_objects(
    spec: Spec, tool: str, max_bytes: int, clock_window: ClockWindow = DEFAULT_CLOCK_WINDOW
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid argument objects of at most ``max_bytes`` in canonical form."""
    schema = spec.input_validator(tool).schema
    drawn = with_placeholders(schema)

    @st.composite
    def objects(draw: Any) -> dict[str, Any]:
        budget = Budget(max_bytes)
        document = draw_value(draw, drawn, budget)
        make_consistent(draw, document, schema, budget, clock_window)
        return document

    # The budget bounds every drawn size; the filter only catches what resolving references
    # to longer targets may add, which is rare. Compact JSON is never shorter than JCS here
    # (JCS writes 10.0 as 10), and much faster to measure.
    return objects().filter(lambda document: json_bytes(document) <= max_bytes)
