"""What the error families share (ERR-001, ERR-003, ERR-005): whether an answer refuses its
call, and values of a JSON type a tool's schema does not allow."""

from __future__ import annotations

from typing import Any

from ...observation import Observation
from ..arguments import fits

#: a value of another JSON type than each schema type
OTHER_TYPE: dict[str, Any] = {
    "string": 42,
    "number": "7",
    "integer": "7",
    "boolean": "yes",
    "array": "1,2",
    "object": "x",
}


def refused(answer: Observation) -> bool:
    """Whether ``answer`` refuses its call: a JSON-RPC error or an ``isError`` result."""
    return answer.outcome == "protocol_error" or bool(answer.is_error)


def other_types(declared: Any) -> tuple[Any, ...]:
    """Values of a JSON type a property's ``type`` (a name, a list of names, or none) does not
    allow: for each type it names, its stand-in of another type that none of them allows."""
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list):
        return ()
    allowed = [name for name in names if isinstance(name, str)]
    stand_ins = [OTHER_TYPE[name] for name in allowed if name in OTHER_TYPE]
    return tuple(value for value in stand_ins if not fits({"type": allowed}, value))
