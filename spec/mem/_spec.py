"""The loaded mem spec: catalogues and version lines as typed objects."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from jsonschema import Draft202012Validator
from referencing import Registry

from ..loaded import Found, LoadedSpec, registry_of
from ..pointers import to_pointer
from ._files import CATALOGUES, TOOLS_META, Documents, read_documents
from ._model import MemTool, Rule, SeedStatement, ToolLine


def build_registry(documents: Documents) -> Registry:
    """Every meta-schema of the folder, addressable by its ``$id``."""
    return registry_of(documents.metas().values())


def shape_errors(documents: Documents, registry: Registry) -> list[Found]:
    """(file, pointer, message) for every meta-schema that is not valid JSON Schema 2020-12,
    every catalogue or tool file that its meta-schema refuses, and every tool input schema that
    is not valid JSON Schema 2020-12."""
    found: list[Found] = []
    metaschema = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    for path, meta in documents.metas().items():
        found += [
            (path, to_pointer(e.absolute_path), e.message) for e in metaschema.iter_errors(meta)
        ]
    if found:
        return found
    targets = [*CATALOGUES.items(), *((path, TOOLS_META) for path in documents.lines())]
    for path, meta_id in targets:
        try:
            meta = registry.contents(meta_id)
        except LookupError:
            found.append((path, "", f"no meta-schema has the $id {meta_id!r}"))
            continue
        validator = Draft202012Validator(meta, registry=registry)
        for error in validator.iter_errors(documents.by_path[path]):
            found.append((path, to_pointer(error.absolute_path), error.message))
    if found:
        return found
    for path, line in documents.lines().items():
        for index, tool in enumerate(line["tools"]):
            for error in metaschema.iter_errors(tool["inputSchema"]):
                where = to_pointer(("tools", index, "inputSchema", *error.absolute_path))
                found.append((path, where, error.message))
    return found


@dataclass(frozen=True)
class MemSpec(LoadedSpec):
    """One mem spec folder, loaded and meta-validated.

    ``tools`` is the union of the version lines' tools: every name a mem server may list and a
    rule may need, each described by the newest line that lists it. ``seed_tools`` are the
    twelve that seed 003 names; ``lines`` holds each version line's own schemas.
    """

    rule_type: ClassVar[type[Rule]] = Rule
    read_documents = staticmethod(read_documents)
    build_registry = staticmethod(build_registry)
    shape_errors = staticmethod(shape_errors)
    documents: Documents
    registry: Registry

    @cached_property
    def lines(self) -> dict[str, ToolLine]:
        """Version -> its tool line, oldest first (the order contract.json gives)."""
        by_version = {
            doc["version"]: ToolLine.from_dict(doc) for doc in self.documents.lines().values()
        }
        order = [v for v in self.contract["lines"] if v in by_version]
        return {v: by_version[v] for v in [*order, *sorted(set(by_version) - set(order))]}

    @cached_property
    def seed_tools(self) -> tuple[str, ...]:
        return tuple(self.contract["seed_tools"])

    @cached_property
    def tools(self) -> dict[str, MemTool]:
        names = sorted({name for line in self.lines.values() for name in line.tools})
        tools = {}
        for name in names:
            listing = tuple(v for v, line in self.lines.items() if name in line.tools)
            newest = self.lines[listing[-1]].tools[name]
            tools[name] = MemTool(
                name=name,
                summary=newest.description,
                lines=listing,
                seed=name in self.seed_tools,
                input_schema=newest.input_schema,
                annotations=newest.annotations,
            )
        return tools

    @cached_property
    def statements(self) -> tuple[SeedStatement, ...]:
        items = self.documents.catalogue("seed.json")["statements"]
        return tuple(SeedStatement(**item) for item in items)

    def trace(self) -> dict[str, tuple[str, ...]]:
        """Seed statement id -> the ids of the rules whose quote has a passage in it."""
        return {
            statement.id: tuple(
                rule.id
                for rule in self.rules.values()
                if any(statement.holds(passage) for passage in rule.passages)
            )
            for statement in self.statements
        }
