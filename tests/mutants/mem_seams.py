"""The seam of the mem behaviour mutants: the mem reference's handlers with its calls changed
on their way in (``sent``: the arguments the reference is given) or out (``answered``: the
result the client gets). A mutant of the store's behaviour patches ``self.service`` in its
``__init__`` instead."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem.server import Handlers


class CallMutant(Handlers):
    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> Any:
        arguments = self.sent(params.name, dict(params.arguments or {}))
        changed = params.model_copy(update={"arguments": arguments})
        result = await super().call_tool(ctx, changed)
        return self.answered(params.name, arguments, result)

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments the reference gets for a call of ``tool`` (by default as sent)."""
        return arguments

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        """The result the client gets (by default the reference's)."""
        return result


def text_of(result: types.CallToolResult) -> str:
    """The text of a reference answer (one text block)."""
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def answering(result: types.CallToolResult, text: str, is_error: bool | None = None) -> Any:
    """``result`` with ``text`` as its text (and ``is_error`` when given)."""
    flag = result.is_error if is_error is None else is_error
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=flag)
