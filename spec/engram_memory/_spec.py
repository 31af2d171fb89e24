"""The loaded spec: catalogues as typed objects, and validators built from the schemas."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from jsonschema import ValidationError, validators
from referencing import Registry

from ..loaded import LoadedSpec, registry_of
from ._files import Documents, read_documents
from ._model import ErrorCode, Example, Limit, ProtocolError, Rule, State, Tool, Transition
from ._shape import shape_errors
from ._vocabulary import SpecValidator, items_until_decided

_MAX_REF_DEPTH = 32
INVALID_SCHEMA = "INVALID_SCHEMA"


def build_registry(documents: Documents) -> Registry:
    """Every schema and meta-schema of the folder, addressable by its ``$id``."""
    return registry_of((*documents.schemas().values(), *documents.metas().values()))


def inline_refs(node: Any, resolver: Any, depth: int = 0) -> Any:
    """A copy of a schema with every ``$ref`` replaced by what it refers to.

    The spec's schemas are not recursive, so this terminates; validation then needs no
    reference lookups (the costly part of validating an argument object). A ``$ref`` site's own
    keywords are kept beside the referred ones, and its ``x-rules`` entries win over the
    definition's: the site is more specific.
    """
    if depth > _MAX_REF_DEPTH:
        raise ValueError("the schemas refer to each other in a cycle")
    if isinstance(node, list):
        return [inline_refs(item, resolver, depth) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" not in node:  # definitions are dropped: once inlined, nothing refers to them
        return {k: inline_refs(v, resolver, depth) for k, v in node.items() if k != "$defs"}
    resolved = resolver.lookup(node["$ref"])
    target = inline_refs(resolved.contents, resolved.resolver, depth + 1)
    site = {
        k: inline_refs(v, resolver, depth) for k, v in node.items() if k not in ("$ref", "$defs")
    }
    rules = {**target.get("x-rules", {}), **site.get("x-rules", {})}
    merged = {**{k: v for k, v in target.items() if k != "$id"}, **site}
    return {**merged, "x-rules": rules} if rules else merged


@dataclass(frozen=True)
class Spec(LoadedSpec):
    """One spec folder, loaded and meta-validated."""

    rule_type: ClassVar[type[Rule]] = Rule
    read_documents = staticmethod(read_documents)
    build_registry = staticmethod(build_registry)
    shape_errors = staticmethod(shape_errors)
    documents: Documents
    registry: Registry = field(repr=False)
    _validators: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    _schemas: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def tools(self) -> dict[str, Tool]:
        return {t["name"]: Tool.from_dict(t) for t in self.contract["tools"]}

    @cached_property
    def limits(self) -> tuple[Limit, ...]:
        return tuple(Limit.from_dict(item) for item in self.contract["limits"])

    @cached_property
    def errors(self) -> dict[str, ErrorCode]:
        codes = self.documents.catalogue("errors.json")["codes"]
        return {c["code"]: ErrorCode.from_dict(c) for c in codes}

    @cached_property
    def actions(self) -> dict[str, str]:
        return dict(self.documents.catalogue("errors.json")["actions"])

    @cached_property
    def protocol_errors(self) -> dict[int, ProtocolError]:
        items = self.documents.catalogue("errors.json")["protocol_errors"]
        return {p["code"]: ProtocolError.from_dict(p) for p in items}

    @cached_property
    def states(self) -> dict[str, State]:
        items = self.documents.catalogue("lifecycle.json")["states"]
        return {s["name"]: State.from_dict(s) for s in items}

    @cached_property
    def transitions(self) -> tuple[Transition, ...]:
        items = self.documents.catalogue("lifecycle.json")["transitions"]
        return tuple(Transition.from_dict(t) for t in items)

    @cached_property
    def examples(self) -> tuple[Example, ...]:
        found = []
        for document in self.documents.examples().values():
            tool = document["tool"]
            found += [Example(tool=tool, **item) for item in document["valid"]]
            found += [Example(tool=tool, **item) for item in document["invalid"]]
        return tuple(found)

    def schema(self, schema_id: str) -> Any:
        """The schema of that ``$id``, or the subschema a URI with a JSON Pointer fragment names
        (looked up once: the server asks for a tool's input schema on every call)."""
        if schema_id not in self._schemas:
            self._schemas[schema_id] = self.registry.resolver().lookup(schema_id).contents
        return self._schemas[schema_id]

    def validator(self, schema_id: str) -> Any:
        """A Draft 2020-12 validator with the spec vocabulary for the schema of that ``$id``."""
        if schema_id not in self._validators:
            resolved = self.registry.resolver().lookup(schema_id)
            inlined = inline_refs(resolved.contents, resolved.resolver)
            self._validators[schema_id] = SpecValidator(inlined, registry=self.registry)
        return self._validators[schema_id]

    def input_validator(self, tool: str) -> Any:
        return self.validator(self.tool(tool).input_schema)

    def argument_validator(self, tool: str) -> Any:
        """The input validator that ``validate_arguments`` uses: it validates an array's items
        only until one decides the answer (``items_until_decided``), so that the cost of an
        argument's errors is bounded by the schema, not by the argument's size."""
        key = f"arguments of {tool}"
        if key not in self._validators:
            extended = validators.extend(
                SpecValidator, {"items": items_until_decided(self._decides)}
            )
            schema = self.input_validator(tool).schema
            self._validators[key] = extended(schema, registry=self.registry)
        return self._validators[key]

    def schema_error_rule(self, error: ValidationError) -> str:
        """The rule an argument's schema error breaks: ``x-rules`` names it for the keyword where
        it failed (validators run on schemas with their references inlined, where a ``$ref``
        site's ``x-rules`` already override the definition's), else the contract's rule for the
        keyword; a null where something else is wanted and any other keyword have their own."""
        keyword_rules = self.contract["keyword_rules"]
        if error.instance is None:
            return keyword_rules["null"]
        rule = error.schema.get("x-rules", {}).get(error.validator)
        return rule or keyword_rules.get(error.validator) or keyword_rules["type"]

    def _decides(self, error: ValidationError) -> bool:
        """Whether a schema error is answered INVALID_SCHEMA, before any other code can be."""
        return (self.rules[self.schema_error_rule(error)].error_code or INVALID_SCHEMA) == (
            INVALID_SCHEMA
        )

    def output_validator(self, tool: str) -> Any:
        return self.validator(self.tool(tool).output_schema)

    def envelope_validator(self) -> Any:
        return self.validator(self.contract["envelope_schema"])

    def binding_validator(self) -> Any:
        return self.validator(self.contract["binding_schema"])
