"""Hypothesis strategies and lifecycle state machines generated from the spec.

``arguments(tool)`` gives valid argument objects for any of the six tools;
``broken_arguments(tool)`` gives objects broken by exactly one rule, each a ``Broken`` labelled
with the rule, the error code and the JSON Pointer ``validate_arguments`` answers.
"""

from .broken_arguments import Broken, broken_arguments, broken_from
from .values import arguments

__all__ = ["Broken", "arguments", "broken_arguments", "broken_from"]
