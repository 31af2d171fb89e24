"""openapi(): the mem tools as OpenAPI 3.1, loadable by Schemathesis, one operation per tool."""

from __future__ import annotations

import schemathesis
from engram_conformance.spec.mem import MemSpec
from engram_conformance.spec.mem.openapi import openapi
from hypothesis import HealthCheck, given, settings


def test_one_operation_per_tool_of_the_union(mem_spec: MemSpec) -> None:
    document = openapi(mem_spec)
    assert document["openapi"] == "3.1.0"
    assert set(document["paths"]) == {f"/tools/{name}" for name in mem_spec.tools}
    for name, tool in mem_spec.tools.items():
        operation = document["paths"][f"/tools/{name}"]["post"]
        assert operation["operationId"] == name
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert body == tool.input_schema
        assert body is not tool.input_schema, "the document is a copy"


def test_one_version_line(mem_spec: MemSpec) -> None:
    document = openapi(mem_spec, "v1.7.0")
    assert len(document["paths"]) == 14
    save = document["paths"]["/tools/mem_save"]["post"]["requestBody"]["content"]
    assert save["application/json"]["schema"]["required"] == ["title", "content"]
    assert "v1.7.0" in document["info"]["description"]


def test_schemathesis_generates_request_bodies_from_it(mem_spec: MemSpec) -> None:
    loaded = schemathesis.openapi.from_dict(openapi(mem_spec))
    operations = [result.ok() for result in loaded.get_all_operations()]
    assert len(operations) == len(mem_spec.tools)
    save = next(op for op in operations if op.path == "/tools/mem_save")
    seen = []

    @settings(
        max_examples=15,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.filter_too_much],
    )
    @given(save.as_strategy())
    def generated(case: schemathesis.Case) -> None:
        assert isinstance(case.body, dict)
        assert isinstance(case.body["title"], str)
        seen.append(case.body)

    generated()
    assert seen
