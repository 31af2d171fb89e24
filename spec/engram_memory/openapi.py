"""The contract as an OpenAPI 3.1 document: one POST operation per tool.

For vendors with an HTTP facade over their tools, and for generators that read OpenAPI
(Schemathesis). The request body of ``POST /tools/{name}`` is the tool's input schema with its
references inlined; the spec's own ``x-`` keywords stay as extensions, which OpenAPI 3.1 allows
(its schemas are JSON Schema 2020-12) but generic tools ignore. The answer is the result
envelope whose ``output.value`` is the tool's output schema.
"""

from __future__ import annotations

from typing import Any

from ._spec import Spec, inline_refs

ENVELOPE = "urn:engram-conformance:schema:envelope"


def _inlined(spec: Spec, schema_id: str) -> dict[str, Any]:
    resolved = spec.registry.resolver().lookup(schema_id)
    schema = inline_refs(resolved.contents, resolved.resolver)
    return {k: v for k, v in schema.items() if k not in ("$id", "$schema")}


def openapi_document(spec: Spec) -> dict[str, Any]:
    identity = spec.contract["identity"]
    failure = _inlined(spec, f"{ENVELOPE}#/$defs/Failure")
    paths = {}
    for tool in spec.tools.values():
        success = _inlined(spec, f"{ENVELOPE}#/$defs/Success")
        success["properties"]["output"]["properties"]["value"] = _inlined(spec, tool.output_schema)
        paths[f"/tools/{tool.name}"] = {
            "post": {
                "operationId": tool.name,
                "summary": tool.summary,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _inlined(spec, tool.input_schema)}},
                },
                "responses": {
                    "200": {
                        "description": "The result envelope (ok true or false).",
                        "content": {"application/json": {"schema": {"oneOf": [success, failure]}}},
                    }
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"{identity['provider']} ({identity['connector']})",
            "version": identity["contract_version"],
            "description": "The six tools of the Engram memory contract, one operation each.",
        },
        "paths": paths,
    }
