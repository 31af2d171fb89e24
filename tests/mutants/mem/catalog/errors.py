"""mem servers that answer failures wrong (ERR) the way real ones do: an error without a
message, arguments checked against the schema by the framework (JSON-RPC errors where a tool
result is due), a handler that throws on a null or never answers it, an unknown tool answered
as a tool result or as an unknown method, an id of 0 or of no memory taken as a success, an
argument its schema refuses taken (dropped when of a wrong type, defaulted when missing).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import anyio
import mcp_types as types
from engram_conformance.conformance.mem.checks.refusals import valid_calls
from engram_conformance.conformance.mem.checks.steps import Project
from engram_conformance.reference_impl.mem.catalogue import TOOLS
from engram_conformance.reference_impl.mem.server import Handlers
from jsonschema import Draft202012Validator
from mcp.shared.exceptions import MCPError

from ...caught import Caught
from ..seams import CallMutant, answering, mem_caught, text_of

#: the JSON types of the schema's words, as Python sees the values
_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def _of_type(value: Any, declared: str) -> bool:
    """Whether ``value`` is of the JSON type ``declared`` (a boolean is no number)."""
    is_bool = isinstance(value, bool)
    return isinstance(value, _TYPES[declared]) and not (is_bool and declared == "number")


def _schema_of(tool: str) -> dict[str, Any]:
    schema = TOOLS[tool].input_schema
    return schema if isinstance(schema, dict) else {}


class EmptyErrorText(CallMutant):
    """A failed call answers isError with an empty text (the message is lost)."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        return answering(result, "") if result.is_error else result


class RequiredCheckedByFramework(Handlers):
    """A call missing a required argument is refused by the framework's schema validation:
    JSON-RPC error -32602 before any handler runs."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        required = _schema_of(params.name).get("required", ()) if params.name in TOOLS else ()
        missing = [name for name in required if name not in (params.arguments or {})]
        if missing:
            raise MCPError(types.INVALID_PARAMS, f"missing required argument {missing[0]}")
        return await super().call_tool(ctx, params)


class TypesCheckedByFramework(Handlers):
    """An argument of another JSON type than its schema's is refused by the framework:
    JSON-RPC error -32602 (as a high-level SDK validating with pydantic does)."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        properties = _schema_of(params.name).get("properties", {}) if params.name in TOOLS else {}
        for name, value in (params.arguments or {}).items():
            declared = properties.get(name, {}).get("type")
            if value is not None and declared in _TYPES and not _of_type(value, declared):
                raise MCPError(types.INVALID_PARAMS, f"{name}: not of type {declared}")
        return await super().call_tool(ctx, params)


class UnknownArgumentRefused(Handlers):
    """An argument the schema does not list is refused by the framework (additionalProperties
    false, enforced): JSON-RPC error -32602."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        properties = _schema_of(params.name).get("properties", {}) if params.name in TOOLS else {}
        unknown = [name for name in params.arguments or {} if name not in properties]
        if properties and unknown:
            raise MCPError(types.INVALID_PARAMS, f"unexpected argument {unknown[0]}")
        return await super().call_tool(ctx, params)


class WrongTypesTakenAsAbsent(Handlers):
    """An argument of another JSON type than its schema's is dropped before the handler runs,
    as if it had not been sent (upstream's way): a search with ``limit: "7"`` succeeds."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        properties = _schema_of(params.name).get("properties", {}) if params.name in TOOLS else {}
        kept = {
            name: value
            for name, value in (params.arguments or {}).items()
            if Draft202012Validator(properties.get(name, {})).is_valid(value)
        }
        return await super().call_tool(ctx, params.model_copy(update={"arguments": kept}))


class MissingTitleFromContent(Handlers):
    """A mem_save without a title takes the content's first forty characters as its title
    instead of refusing the call its schema refuses."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        arguments = dict(params.arguments or {})
        content = arguments.get("content")
        if params.name == "mem_save" and "title" not in arguments and isinstance(content, str):
            arguments["title"] = content[:40]
        return await super().call_tool(ctx, params.model_copy(update={"arguments": arguments}))


class RequiredTextDefaulted(Handlers):
    """Base: a call of ``tool`` without its required text argument ``argument`` is served as if
    it had been sent a placeholder, instead of refused as its schema says."""

    tool: ClassVar[str]
    argument: ClassVar[str]

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        arguments = dict(params.arguments or {})
        if params.name == self.tool and self.argument not in arguments:
            arguments[self.argument] = "(not sent)"
        return await super().call_tool(ctx, params.model_copy(update={"arguments": arguments}))


def _required_texts() -> list[tuple[str, str]]:
    """(tool, argument) for each required text argument of the reference's tools (a string
    that is no id: an id has no placeholder a server could serve), but mem_save's title
    (``MissingTitleFromContent``)."""
    return [
        (tool, name)
        for tool in TOOLS
        for name in _schema_of(tool).get("required", ())
        if _schema_of(tool)["properties"][name].get("type") == "string"
        and name != "id"
        and (tool, name) != ("mem_save", "title")
    ]


def _camel(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def _per_argument(
    base: type[Handlers], pairs: list[tuple[str, str]], name: str, doc: str
) -> dict[tuple[str, str], type[Handlers]]:
    """A subclass of ``base`` for each (tool, argument) of ``pairs``: its class name ``name``
    and docstring ``doc``, formatted with ``tool`` and ``argument`` (``Tool`` and
    ``Argument`` in camel case)."""
    made: dict[tuple[str, str], type[Handlers]] = {}
    for tool, argument in pairs:
        words = {"tool": tool, "argument": argument}
        words |= {"Tool": _camel(tool.removeprefix("mem_")), "Argument": _camel(argument)}
        fields = {"__doc__": doc.format(**words), "__module__": __name__}
        made[tool, argument] = type(
            name.format(**words), (base,), fields | {"tool": tool, "argument": argument}
        )
    return made


def _cases(mutants: dict[tuple[str, str], type[Handlers]], case: str) -> list[Any]:
    """Each of ``mutants`` with what it breaks: ERR-005, each failure of its ``case``
    (formatted with ``tool`` and ``argument``)."""
    return [
        (mutant, mem_caught("ERR-005", about={"ERR-005": case.format(tool=t, argument=a)}))
        for (t, a), mutant in mutants.items()
    ]


#: ERR-005: each required text argument left out -> a server that fills it in
REQUIRED_TEXT_DEFAULTED = _per_argument(
    RequiredTextDefaulted,
    _required_texts(),
    "{Tool}Without{Argument}Served",
    "{tool} without its required {argument} is served with a placeholder {argument} instead "
    "of refused.",
)


class NullThrows(Handlers):
    """A handler dereferences a null argument and throws; the exception reaches the MCP
    framework, which answers a JSON-RPC internal error."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        if any(value is None for value in (params.arguments or {}).values()):
            raise TypeError("nil pointer dereference")
        return await super().call_tool(ctx, params)


class NullQueryHangs(Handlers):
    """A search handler waits forever on a null query (a lock never released, say); every
    other call is answered as the reference answers it."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        arguments = params.arguments or {}
        if params.name == "mem_search" and "query" in arguments and arguments["query"] is None:
            await anyio.sleep_forever()
        return await super().call_tool(ctx, params)


class UnknownToolAsToolError(Handlers):
    """A tool not listed is answered as a tool result with isError, not a JSON-RPC error."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        if params.name not in TOOLS:
            text = types.TextContent(type="text", text=f"Unknown tool: {params.name}")
            return types.CallToolResult(content=[text], is_error=True)
        return await super().call_tool(ctx, params)


class UnknownToolAsUnknownMethod(Handlers):
    """A tool not listed is answered JSON-RPC -32601 (method not found), not -32602."""

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        if params.name not in TOOLS:
            raise MCPError(types.METHOD_NOT_FOUND, f"Method {params.name} not found")
        return await super().call_tool(ctx, params)


class IdZeroIsNoError(CallMutant):
    """mem_update and mem_delete of id 0 answer success (nothing changed, nothing said)."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool in ("mem_update", "mem_delete") and arguments.get("id") == 0:
            return answering(result, "Memory #0 soft-deleted", is_error=False)
        return result


class MissingObservationIsText(CallMutant):
    """mem_get_observation of an id no memory has answers isError false ("not found" as
    text)."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool == "mem_get_observation" and "not found" in text_of(result):
            return answering(result, text_of(result), is_error=False)
        return result


class TakesOneArgumentOfAnyType(Handlers):
    """Base: a call of ``tool`` whose ``argument`` is of another JSON type than its schema's is
    served instead of refused: the argument dropped, as if not sent (upstream's way), where the
    schema does not require it; coerced to its type as a loosely typed handler does (``42``
    read as ``"42"``, ``"7"`` as ``7``, ``"yes"`` as ``true``) where it does."""

    tool: ClassVar[str]
    argument: ClassVar[str]

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        arguments = dict(params.arguments or {})
        value = arguments.get(self.argument)
        schema = _schema_of(self.tool)
        declared = schema["properties"][self.argument].get("type")
        if params.name == self.tool and value is not None and not _of_type(value, declared):
            coerced = (self.tool, self.argument) in COERCED_WHEN_OPTIONAL
            if self.argument in schema.get("required", ()) or coerced:
                arguments[self.argument] = _coerced(value, declared)
            else:
                del arguments[self.argument]
        return await super().call_tool(ctx, params.model_copy(update={"arguments": arguments}))


def _coerced(value: Any, declared: str) -> Any:
    """``value`` read as a value of the JSON type ``declared`` by a loosely typed language."""
    if declared == "string":
        return value if isinstance(value, str) else json.dumps(value)
    if declared == "number":
        try:
            return int(value)
        except (TypeError, ValueError):
            return 0
    if declared == "boolean":
        return bool(value)
    return value


#: Optional arguments a server must read, not drop, to serve the call: mem_update's title is
#: the one field its valid call changes (an update of nothing is refused).
COERCED_WHEN_OPTIONAL = {("mem_update", "title")}


def _typed_arguments() -> list[tuple[str, str]]:
    """(tool, argument) for each argument the check's valid calls can send of another JSON
    type (those of the tools it calls whose schema gives a type) that a server can read into
    a call it serves (mem_session_end's id too: the check's session id is a numeral, sent as
    the number it spells)."""
    called = valid_calls(Project("p", "s"), "t", 1)
    return [
        (tool, name)
        for tool in called
        for name, schema in _schema_of(tool).get("properties", {}).items()
        if schema.get("type") in _TYPES
    ]


#: ERR-005: each typed argument sent of another JSON type -> a server that takes it
OF_ANY_TYPE = _per_argument(
    TakesOneArgumentOfAnyType,
    _typed_arguments(),
    "{Tool}Takes{Argument}OfAnyType",
    "{tool} takes a {argument} of another JSON type (dropped when optional, coerced when "
    "required) instead of refusing it.",
)


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (EmptyErrorText, mem_caught("ERR-001")),
    # a call without its required arguments is ERR-001's failure, ERR-003's bad argument and
    # ERR-004's call without an id
    (RequiredCheckedByFramework, mem_caught("ERR-001", "ERR-003", "ERR-004")),
    (UnknownToolAsToolError, mem_caught("ERR-002")),
    (UnknownToolAsUnknownMethod, mem_caught("ERR-002")),
    (TypesCheckedByFramework, mem_caught("ERR-003")),
    (UnknownArgumentRefused, mem_caught("ERR-003")),
    (NullThrows, mem_caught("ERR-003")),
    (NullQueryHangs, mem_caught("ERR-003")),
    (IdZeroIsNoError, mem_caught("ERR-004")),
    (MissingObservationIsText, mem_caught("ERR-004")),
    (WrongTypesTakenAsAbsent, mem_caught("ERR-005")),
    (MissingTitleFromContent, mem_caught("ERR-005")),
    *_cases(REQUIRED_TEXT_DEFAULTED, "{tool} without its required {argument} "),
    *_cases(OF_ANY_TYPE, "{tool} with {argument} of another JSON type "),
]
