"""Reading engram-memory's answer envelope: ``{"ok": true, "output": {"value": …}}`` or
``{"ok": false, "error": {"code": …}}`` as a result's structured content, or a JSON-RPC error.

The functions take any ``Answer`` (``answers``): the harness's ``Observation`` is one. They are
the contract's reading, not the core's: the core's ``Observation`` keeps the answer as it came.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .answers import Answer


def envelope(answer: Answer) -> dict[str, Any] | None:
    """The result envelope, when the answer is a result carrying an object."""
    return answer.structured if isinstance(answer.structured, dict) else None


def ok(answer: Answer) -> bool:
    found = envelope(answer)
    return found is not None and found.get("ok") is True


def value(answer: Answer) -> dict[str, Any]:
    """The success output value ({} when there is none)."""
    found = envelope(answer) or {}
    output = found.get("output")
    value = output.get("value") if isinstance(output, dict) else None
    return value if isinstance(value, dict) else {}


def code(answer: Answer) -> str | int | None:
    """The error envelope's code, the JSON-RPC error code, or None for a success."""
    if answer.outcome == "protocol_error":
        return answer.error_code
    error = (envelope(answer) or {}).get("error")
    return error.get("code") if isinstance(error, dict) else None
