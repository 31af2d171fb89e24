"""The shape of a spec folder: schemas valid 2020-12, known x- keywords, catalogues per meta-schema.

Each finding is (file relative to the spec folder, JSON Pointer in it, message).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry

from ..pointers import to_pointer
from ._files import CATALOGUES, EXAMPLES_META, Documents

Found = tuple[str, str, str]
VOCABULARY_META = "urn:engram-conformance:meta:vocabulary"


def shape_errors(documents: Documents, registry: Registry) -> Iterator[Found]:
    """Every shape error: invalid schemas, unknown or bad x- keywords, meta-schema breaches."""
    yield from schema_errors(documents)
    yield from vocabulary_errors(documents, registry)
    yield from meta_errors(documents, registry)


def meta_errors(documents: Documents, registry: Registry) -> Iterator[Found]:
    """(file, pointer, message) for every catalogue or example that its meta-schema refuses."""
    targets = [(name, meta) for name, meta in CATALOGUES.items()]
    targets += [(path, EXAMPLES_META) for path in documents.examples()]
    for path, meta_id in targets:
        meta = registry.contents(meta_id)
        validator = Draft202012Validator(meta, registry=registry)
        for error in validator.iter_errors(documents.by_path[path]):
            yield path, to_pointer(error.absolute_path), error.message


def schema_errors(documents: Documents) -> Iterator[Found]:
    """(file, pointer, message) for every schema that is not valid JSON Schema 2020-12."""
    for path, schema in documents.schemas().items():
        for error in Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(schema):
            yield path, to_pointer(error.absolute_path), error.message


#: Keywords whose values are data, not subschemas: the walk does not look inside them.
_NOT_SUBSCHEMAS = {
    "x-rules",
    "x-crossReferences",
    "x-clock",
    "x-header",
    "enum",
    "const",
    "default",
}


def walk_subschemas(node: Any, location: tuple = ()) -> Iterator[tuple[tuple, dict[str, Any]]]:
    if isinstance(node, dict):
        yield location, node
        for key, value in node.items():
            if key not in _NOT_SUBSCHEMAS:
                yield from walk_subschemas(value, (*location, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk_subschemas(value, (*location, index))


def vocabulary_errors(documents: Documents, registry: Registry) -> Iterator[Found]:
    meta = Draft202012Validator(registry.contents(VOCABULARY_META))
    for path, schema in documents.schemas().items():
        for location, node in walk_subschemas(schema):
            own = {key: value for key, value in node.items() if key.startswith("x-")}
            for error in meta.iter_errors(own):
                where = to_pointer((*location, *error.absolute_path))
                yield path, where, error.message
