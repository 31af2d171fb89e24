"""The mem contract as an OpenAPI 3.1 document: one POST operation per tool.

For generators that read OpenAPI (Schemathesis) and for vendors with an HTTP facade over their
tools. The request body of ``POST /tools/{name}`` is the tool's input schema as the chosen
version line publishes it (by default the newest line that lists the tool); the answer is an MCP
tool result, one text block or more and ``isError``.
"""

from __future__ import annotations

import copy
from typing import Any

from ._spec import MemSpec

TOOL_RESULT = {
    "type": "object",
    "required": ["content"],
    "properties": {
        "content": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["type"],
                "properties": {"type": {"type": "string"}, "text": {"type": "string"}},
            },
        },
        "isError": {"type": "boolean"},
    },
}


def openapi(spec: MemSpec, version: str | None = None) -> dict[str, Any]:
    """The document for every tool (``version`` None), or for the tools of one version line."""
    if version is None:
        schemas = {name: tool.input_schema for name, tool in spec.tools.items()}
        summaries = {name: tool.summary for name, tool in spec.tools.items()}
    else:
        line = spec.lines[version]
        schemas = {name: tool.input_schema for name, tool in line.tools.items()}
        summaries = {name: tool.description for name, tool in line.tools.items()}
    identity = spec.contract["identity"]
    paths = {
        f"/tools/{name}": {
            "post": {
                "operationId": name,
                "summary": summaries[name],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": copy.deepcopy(schema)}},
                },
                "responses": {
                    "200": {
                        "description": "The MCP tool result (isError true for a failed call).",
                        "content": {"application/json": {"schema": copy.deepcopy(TOOL_RESULT)}},
                    }
                },
            }
        }
        for name, schema in sorted(schemas.items())
    }
    line_words = "every version line" if version is None else f"upstream {version}"
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{identity['contract']} ({identity['upstream']})",
            "version": identity["contract_version"],
            "description": f"The mem_* tools of {line_words}, one operation each.",
        },
        "paths": paths,
    }
