"""Read report JSON strictly and validate it against report.schema.json."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from .sanitize import scrub, truncate

SCHEMA_ID = "urn:engram-conformance:report:v1"
SCHEMA_PATH = Path(__file__).with_name("report.schema.json")
_PROBLEM_LIMIT = 300


class InvalidReport(Exception):
    """A report document that cannot be used: where (a JSON Pointer) and what is wrong.

    A plain exception, not a frozen dataclass: a context manager it passes through assigns its
    ``__traceback__`` (contextlib does, under click), which a frozen instance refuses, and the
    FrozenInstanceError then hid the problem it reports.
    """

    def __init__(self, pointer: str, problem: str, source: str | None = None) -> None:
        super().__init__(pointer, problem, source)
        self.pointer = pointer
        self.problem = problem
        self.source = source  # the file it was read from, when there was one

    def __str__(self) -> str:
        return f"{self.source or 'report'}: at '{self.pointer}': {self.problem}"

    def with_source(self, source: str) -> InvalidReport:
        """The same problem, found in the file ``source``."""
        return InvalidReport(self.pointer, self.problem, source)


def to_pointer(location: Iterable[str | int]) -> str:
    """A location inside a document as a JSON Pointer (RFC 6901)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in location)


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of the report document."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


def check_schema(data: Any) -> None:
    """Raise InvalidReport at the most relevant place where ``data`` breaks the schema."""
    error = best_match(_validator().iter_errors(data))
    if error is not None:
        problem = truncate(scrub(error.message), _PROBLEM_LIMIT)
        raise InvalidReport(to_pointer(error.absolute_path), problem)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"duplicate key {scrub(duplicate)!r}")
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse(text: str) -> Any:
    """Parse JSON text strictly: NaN, Infinity and duplicate keys are refused."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        problem = f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        raise InvalidReport("", problem) from error
    except ValueError as error:
        raise InvalidReport("", f"not valid JSON: {error}") from error
