"""The Engram memory contract as data: schemas, catalogues, and the validator built from them.

``load()`` reads the spec shipped with this package once; ``validate_arguments`` answers an
argument object as a conforming server must (OK, or the error code and the rule that failed).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..canonical import canonical_json, digest, operation_digest
from ..instants import instant, instant_ms, wall_clock_ms
from ..json_files import SpecFileError
from ..loaded import folder_loader
from ..pointers import resolve as resolve_pointer
from ._arguments import ArgumentVerdict
from ._arguments import check_clock as _check_clock
from ._arguments import validate_arguments as _validate
from ._files import PACKAGED_ROOT
from ._model import ErrorCode, Example, Limit, ProtocolError, Rule, State, Tool, Transition
from ._outputs import OutputBreach, output_breaches, schema_rules
from ._spec import Spec
from ._vocabulary import UTF16_ORDER, SpecValidator, utf16_key

__all__ = [
    "PACKAGED_ROOT",
    "UTF16_ORDER",
    "ArgumentVerdict",
    "ErrorCode",
    "Example",
    "Limit",
    "OutputBreach",
    "ProtocolError",
    "Rule",
    "Spec",
    "SpecFileError",
    "SpecValidator",
    "State",
    "Tool",
    "Transition",
    "canonical_json",
    "check_clock",
    "digest",
    "instant",
    "instant_ms",
    "load",
    "operation_digest",
    "output_breaches",
    "resolve_pointer",
    "schema_rules",
    "utf16_key",
    "validate_arguments",
]


_load = folder_loader(Spec.from_folder, PACKAGED_ROOT)


def load(root: Path | str | None = None) -> Spec:
    """The spec in ``root`` (default: the one shipped with this package), loaded once per folder."""
    return _load(root)


def validate_arguments(
    tool: str,
    arguments: Any,
    *,
    clock: Callable[[], int] | None = wall_clock_ms,
    spec: Spec | None = None,
) -> ArgumentVerdict:
    """The contract's answer to ``arguments`` for ``tool``: ``.ok``, or ``.code`` and ``.rule``.

    ``clock`` returns epoch milliseconds for the checks against the clock (``expires_at`` strictly
    after now); pass ``None`` to stop before them, as a server does before replay detection.
    """
    return _validate(spec or load(), tool, arguments, clock=clock)


def check_clock(
    tool: str, arguments: Any, now_ms: int, *, spec: Spec | None = None
) -> ArgumentVerdict:
    """The checks against the clock alone (``expires_at`` strictly after ``now_ms``)."""
    return _check_clock(spec or load(), tool, arguments, now_ms)
