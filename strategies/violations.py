"""What a state machine of any contract raises when an expectation breaks: a ``Violation`` of
the rule, one class per rule, so that Hypothesis shrinks each broken rule as a bug of its own."""

from __future__ import annotations

from functools import cache
from typing import ClassVar


class Violation(AssertionError):
    """An expectation of ``rule`` broke."""

    rule: ClassVar[str] = ""


@cache
def violation_of(rule: str) -> type[Violation]:
    """The ``Violation`` class of ``rule``."""
    return type(f"Violation_{rule.replace('-', '_')}", (Violation,), {"rule": rule})
