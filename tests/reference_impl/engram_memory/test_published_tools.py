"""What tools/list publishes: the six tools with the spec's input schemas, resolvable offline."""

from __future__ import annotations

import pytest
from engram_conformance.reference_impl.engram_memory.server import bundled_schema, published_tool
from engram_conformance.spec.engram_memory import Example, Spec
from jsonschema import Draft202012Validator
from referencing import Registry


@pytest.fixture(scope="module")
def validators(spec: Spec) -> dict[str, Draft202012Validator]:
    """A plain validator per published schema, with no registry: what a client would build."""
    validators = {}
    for name in spec.tools:
        schema = published_tool(spec, name).input_schema
        Draft202012Validator.check_schema(schema)
        validators[name] = Draft202012Validator(schema, registry=Registry())
    return validators


def test_each_published_schema_is_the_spec_schema_with_its_references_embedded(
    spec: Spec,
) -> None:
    for name, tool in spec.tools.items():
        published = published_tool(spec, name).input_schema
        original = spec.schema(tool.input_schema)
        assert {k: v for k, v in published.items() if k != "$defs"} == {
            k: v for k, v in original.items() if k != "$defs"
        }
        for embedded_id, embedded in published.get("$defs", {}).items():
            if embedded_id.startswith("urn:"):
                assert embedded == spec.schema(embedded_id)


def test_a_client_without_the_spec_accepts_valid_examples_and_refuses_structural_breaks(
    spec: Spec, validators: dict[str, Draft202012Validator]
) -> None:
    """Byte bounds and NFC are spec keywords a plain client ignores; types and closedness it
    checks like the server."""
    valid: list[Example] = [e for e in spec.examples if e.valid]
    for example in valid:
        assert validators[example.tool].is_valid(example.arguments), example.name
    for name in spec.tools:
        arguments = next(e.arguments for e in valid if e.tool == name)
        assert not validators[name].is_valid({**arguments, "tenant": "tenant-a"})


def test_annotations_say_which_tools_read_and_which_destroy(spec: Spec) -> None:
    hints = {
        name: (tool.annotations.read_only_hint, tool.annotations.destructive_hint)
        for name in spec.tools
        if (tool := published_tool(spec, name)).annotations is not None
    }
    assert hints == {
        "engram_memory_search": (True, False),
        "engram_memory_get": (True, False),
        "engram_memory_capture": (False, False),
        "engram_memory_request_admission": (False, False),
        "engram_memory_withdraw": (False, True),
        "engram_memory_forget": (False, True),
    }


def test_no_output_schema_is_published(spec: Spec) -> None:
    """structuredContent is the whole envelope; a schema of the value would fail every call."""
    assert all(published_tool(spec, name).output_schema is None for name in spec.tools)


def test_a_schema_without_references_is_published_unchanged(spec: Spec) -> None:
    definitions = spec.schema("urn:engram-conformance:schema:definitions")
    assert bundled_schema(spec, "urn:engram-conformance:schema:definitions") == definitions
