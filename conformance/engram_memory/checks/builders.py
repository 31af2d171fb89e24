"""Valid arguments for scripted checks, built from the spec's own labelled examples.

The ``minimal`` valid example of each tool is the template; builders give it a unique
idempotency key, the identity's purpose and distinctive text, so that a check can find exactly
what it wrote.
"""

from __future__ import annotations

import copy
from typing import Any

from engram_conformance.spec.engram_memory import Spec


def template(spec: Spec, tool: str, name: str = "minimal") -> dict[str, Any]:
    for example in spec.examples:
        if example.tool == tool and example.valid and example.name == name:
            return copy.deepcopy(example.arguments)
    raise LookupError(f"spec/engram_memory/examples has no valid example {name!r} for {tool}")


def capture_arguments(
    spec: Spec, *, key: str, purpose_ref: str, text: str, valid_from_ms: int = 0
) -> dict[str, Any]:
    """A valid capture of ``text`` (the primary component's text), current from ``valid_from_ms``.

    Retention and reconciliation are left out, so that any host policy accepts it.
    """
    arguments = template(spec, "engram_memory_capture")
    payload = arguments["payload"]
    payload["purpose_ref"] = purpose_ref
    payload["valid_time"] = {"t": valid_from_ms}
    payload["primary_event"]["at"] = valid_from_ms
    payload.pop("retention", None)
    payload.pop("reconciliation", None)
    primary = payload["primary_component_id"]
    for component in payload["components"]:
        if component["component_id"] == primary:
            component["text"] = text
    arguments["idempotency_key"] = key
    return arguments
