"""spec openapi: the contract as OpenAPI 3.1, loadable by Schemathesis, one operation per tool."""

from __future__ import annotations

import json

import schemathesis
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.spec.engram_memory import Spec, validate_arguments
from engram_conformance.spec.engram_memory.openapi import openapi_document
from hypothesis import HealthCheck, given, settings


def test_one_operation_per_tool_with_the_spec_schemas(spec: Spec) -> None:
    document = openapi_document(spec)
    assert document["openapi"] == "3.1.0"
    assert set(document["paths"]) == {f"/tools/{name}" for name in spec.tools}
    for name, tool in spec.tools.items():
        body = document["paths"][f"/tools/{name}"]["post"]["requestBody"]["content"]
        schema = body["application/json"]["schema"]
        assert schema["required"] == spec.schema(tool.input_schema)["required"]
        assert schema["additionalProperties"] is False
        assert "$ref" not in json.dumps(schema)


def test_schemathesis_generates_request_bodies_from_it(spec: Spec) -> None:
    loaded = schemathesis.openapi.from_dict(openapi_document(spec))
    operations = [result.ok() for result in loaded.get_all_operations()]
    assert len(operations) == len(spec.tools)
    search = next(op for op in operations if op.path == "/tools/engram_memory_search")
    accepted = []

    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.filter_too_much],
    )
    @given(search.as_strategy())
    def generated(case: schemathesis.Case) -> None:
        assert isinstance(case.body, dict)
        assert {"query", "purpose_ref"} <= set(case.body)
        accepted.append(validate_arguments("engram_memory_search", case.body, spec=spec).ok)

    generated()
    assert any(accepted), "Schemathesis knows no UTF-8 byte bound, yet most bodies fit"


def test_cli_prints_the_document() -> None:
    result = CliRunner().invoke(main, ["spec", "openapi"])
    assert result.exit_code == 0
    assert json.loads(result.output)["info"]["version"] == "1.0.0"
