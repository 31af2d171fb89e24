"""Whether a server's tools/list is a compatible widening of an upstream version line.

A listing widens a line when a client written against the line still works with it: every tool of
the line is listed; every property of a line schema is present; no property's type or enum is
narrowed (``integer`` narrows ``number``; an enum or const where the line has none narrows it);
no property is newly required; additionalProperties is not narrowed (the line's schemas are open,
so ``false`` or a restricting schema narrows them). The same holds inside nested object and array
schemas. These are the criteria of upstream's own contract test (TestMCPToolContractV1); other
keywords (bounds, patterns) are not compared.

Annotations are no part of compatibility: where a listed tool's readOnlyHint or destructiveHint
differs from the line's, that is reported apart (``hint_differences``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..pointers import to_pointer
from ._model import LineTool, ToolLine

BreakKind = Literal[
    "missing_tool",
    "not_an_object_schema",
    "missing_property",
    "type_narrowed",
    "enum_narrowed",
    "newly_required",
    "additional_properties_narrowed",
]
HINTS = ("readOnlyHint", "destructiveHint")
Listing = Iterable[Mapping[str, Any]] | Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Break:
    """One way a listing fails to widen a line.

    ``pointer`` is the place in the line's tool entry (``/inputSchema/properties/id/type``);
    ``certain`` is false when the line knows that place only from indirect evidence (a
    reconstructed item of v3.7.2), so a report can tell a sure break from a doubtful one.
    """

    kind: BreakKind
    tool: str
    pointer: str
    detail: str
    certain: bool = True

    def __str__(self) -> str:
        doubt = "" if self.certain else " (the line's fact is reconstructed)"
        return f"{self.tool}: {self.kind} at {self.pointer or '/'}: {self.detail}{doubt}"


@dataclass(frozen=True)
class HintDifference:
    """A listed tool whose readOnlyHint or destructiveHint differs from the line's."""

    tool: str
    hint: str
    line: bool
    listed: Any
    certain: bool = True


@dataclass(frozen=True)
class Widening:
    """The answer for one version line."""

    version: str
    breaks: tuple[Break, ...]
    hint_differences: tuple[HintDifference, ...] = ()

    @property
    def compatible(self) -> bool:
        """No break at all: the listing is a compatible widening of the line."""
        return not self.breaks

    @property
    def certainly_incompatible(self) -> bool:
        """Some break rests on a fact of the line known for sure."""
        return any(b.certain for b in self.breaks)


def listed_tools(listing: Listing) -> dict[str, Mapping[str, Any]]:
    """Tool name -> tool object, from tools/list's ``tools`` array or from such a mapping."""
    if isinstance(listing, Mapping):
        return {str(name): tool for name, tool in listing.items()}
    return {str(tool.get("name")): tool for tool in listing}


def widening(listing: Listing, line: ToolLine) -> Widening:
    """How ``listing`` (a server's tools/list tools) stands to one version line."""
    listed = listed_tools(listing)
    breaks: list[Break] = []
    hints: list[HintDifference] = []
    for name, tool in line.tools.items():
        if name not in listed:
            breaks.append(_break(tool, "missing_tool", "", "the server does not list it"))
            continue
        schema = listed[name].get("inputSchema")
        breaks += _schema_breaks(tool, tool.input_schema, schema, ("inputSchema",))
        hints += _hint_differences(line, tool, listed[name].get("annotations"))
    return Widening(line.version, tuple(breaks), tuple(hints))


def widenings(listing: Listing, lines: Mapping[str, ToolLine]) -> dict[str, Widening]:
    """Version -> its ``Widening``, for every line (``MemSpec.lines``)."""
    return {version: widening(listing, line) for version, line in lines.items()}


def _break(tool: LineTool, kind: BreakKind, pointer: str, detail: str) -> Break:
    return Break(kind, tool.name, pointer, detail, certain=not tool.reconstructed(pointer))


def _types(schema: Mapping[str, Any]) -> set[str] | None:
    declared = schema.get("type")
    if declared is None:
        return None
    return {declared} if isinstance(declared, str) else set(declared)


def _values(schema: Mapping[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return list(enum) if isinstance(enum, list) else None


def _open(additional: Any) -> bool:
    return additional is True or additional == {}


def _schema_breaks(
    tool: LineTool, line: Mapping[str, Any], listed: Any, location: tuple[str, ...]
) -> Iterator[Break]:
    at = to_pointer(location)
    if not isinstance(listed, Mapping):
        yield _break(tool, "not_an_object_schema", at, f"the listed schema is {listed!r}")
        return
    line_types, listed_types = _types(line), _types(listed)
    if line_types is not None and listed_types is not None:
        lost = {t for t in line_types if t not in listed_types} - (
            {"integer"} if "number" in listed_types else set()
        )
        if lost:
            detail = f"the line takes {sorted(line_types)}, the listing {sorted(listed_types)}"
            yield _break(tool, "type_narrowed", to_pointer((*location, "type")), detail)
    line_values, listed_values = _values(line), _values(listed)
    if listed_values is not None and (
        line_values is None or any(v not in listed_values for v in line_values)
    ):
        detail = f"the line allows {'any value' if line_values is None else line_values}, "
        detail += f"the listing only {listed_values}"
        yield _break(tool, "enum_narrowed", to_pointer((*location, "enum")), detail)
    listed_properties = listed.get("properties")
    listed_properties = listed_properties if isinstance(listed_properties, Mapping) else {}
    for name, subschema in line.get("properties", {}).items():
        where = (*location, "properties", name)
        if name not in listed_properties:
            yield _break(tool, "missing_property", to_pointer(where), f"{name!r} is not listed")
        else:
            yield from _schema_breaks(tool, subschema, listed_properties[name], where)
    line_required = set(line.get("required", []))
    listed_required = listed.get("required", [])
    for name in listed_required if isinstance(listed_required, list) else []:
        if name not in line_required:
            where = to_pointer((*location, "properties", str(name)))
            yield _break(tool, "newly_required", where, f"{name!r} is required, the line's is not")
    yield from _additional_breaks(tool, line, listed, location)
    if isinstance(line.get("items"), Mapping) and "items" in listed:
        yield from _schema_breaks(tool, line["items"], listed["items"], (*location, "items"))


def _additional_breaks(
    tool: LineTool, line: Mapping[str, Any], listed: Mapping[str, Any], location: tuple[str, ...]
) -> Iterator[Break]:
    line_extra = line.get("additionalProperties", True)
    listed_extra = listed.get("additionalProperties", True)
    where = (*location, "additionalProperties")
    if line_extra is False or _open(listed_extra):
        return
    if _open(line_extra) or listed_extra is False:
        detail = f"the line's is {line_extra!r}, the listing's {listed_extra!r}"
        yield _break(tool, "additional_properties_narrowed", to_pointer(where), detail)
    elif isinstance(line_extra, Mapping):
        yield from _schema_breaks(tool, line_extra, listed_extra, where)


def _hint_differences(line: ToolLine, tool: LineTool, annotations: Any) -> Iterator[HintDifference]:
    annotations = annotations if isinstance(annotations, Mapping) else {}
    for hint in HINTS:
        if annotations.get(hint) != tool.annotations[hint]:
            certain = line.exact and not tool.reconstructed(f"/annotations/{hint}")
            yield HintDifference(
                tool.name, hint, tool.annotations[hint], annotations.get(hint), certain
            )
