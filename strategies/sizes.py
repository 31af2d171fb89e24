"""How big generated values are: sizes that shrink small yet reach their bounds, and a byte budget.

A size is drawn in one of four modes: a few steps above the minimum (two chances in eight), a
small size (four), anywhere in the range (one), exactly the maximum (one), so that typical
objects stay small and bounds are common. Hypothesis shrinks each integer toward its lower
bound, so the mode shrinks to "near the minimum" and the size to the minimum. Mode and size are
both always drawn (rather than a ``one_of`` whose alternatives draw different choices), so that
changing the mode while shrinking never shifts the choices drawn after it; and they are drawn
with ``draw`` directly, since strategies built per call (``.map``) cost more than the draws.

An argument object must stay within the contract's 1 MiB limit, which fifty components of
65,536 bytes would break. A ``Budget`` follows what one argument object has spent so far, and
caps every later size so that the object stays within it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

Draw = Callable[[st.SearchStrategy[Any]], Any]

#: How far above the minimum the "near" mode reaches; the "small" mode's reach is an argument.
_NEAR_MINIMUM = 3
#: The small mode's reach for string lengths (bytes) and for list lengths (items).
SMALL_BYTES = 64
SMALL_ITEMS = 8
#: What a value adds beyond its own JSON text, at most: its key, quotes, colon and comma.
_OVERHEAD = 32
#: JSON escapes a control character as six bytes (``\u001f``): the most a byte can grow.
_WORST_ESCAPE = 6


def draw_size(draw: Draw, low: int, high: int, small: int) -> int:
    """An integer in ``[low, high]`` that shrinks to ``low`` and often is ``high``."""
    mode = draw(st.integers(0, 7))
    drawn = draw(st.integers(low, high))
    if mode < 6:
        steps = min(_NEAR_MINIMUM if mode < 2 else small, high - low)
        return low + (drawn - low) % (steps + 1)
    return drawn if mode == 6 else high


def json_bytes(value: Any) -> int:
    """The UTF-8 length of ``value`` as compact JSON (JCS differs only in number forms)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


@dataclass
class Budget:
    """The bytes an argument object may still spend; sizes drawn later are capped by it."""

    remaining: int

    def cap_bytes(self, low: int, high: int) -> int:
        """The largest UTF-8 length a string may get now, never below ``low``."""
        return max(low, min(high, self.remaining // _WORST_ESCAPE))

    def cap_items(self, low: int, high: int, item_bytes: int = 1) -> int:
        """The most items a list may get now, never below ``low``."""
        return max(low, min(high, self.remaining // (item_bytes + _OVERHEAD)))

    def spend(self, value: Any) -> None:
        self.remaining -= json_bytes(value) + _OVERHEAD

    def refund(self, value: Any) -> None:
        self.remaining += json_bytes(value) + _OVERHEAD
