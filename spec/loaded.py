"""What both contracts' loaded specs share: the registry of a folder's schemas, reading a folder
and checking its shape, the rule catalogue, tool lookup, and loading each folder once."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache, cached_property
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .json_files import Documents, SpecFileError

#: One shape error: (file, JSON Pointer, message).
Found = tuple[str, str, str]
Folder = tuple[Any, Registry, Iterable[Found]]
S = TypeVar("S")


def registry_of(documents: Iterable[Any]) -> Registry:
    """Every document that has an ``$id``, addressable by it (JSON Schema 2020-12 by default)."""
    resources = [
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in documents
        if isinstance(doc, dict) and "$id" in doc
    ]
    return Registry().with_resources(resources).crawl()


class LoadedSpec:
    """The part of a contract's spec class that both contracts share.

    A subclass is a frozen dataclass whose first fields are ``documents`` and ``registry``; it
    names its rule type (``rule_type``, with a ``from_dict``) and how a folder is read
    (``read_documents``), its registry built (``build_registry``) and its shape checked
    (``shape_errors``), each as a staticmethod.
    """

    rule_type: ClassVar[Any]
    read_documents: ClassVar[Callable[[Path], Any]]
    build_registry: ClassVar[Callable[[Any], Registry]]
    shape_errors: ClassVar[Callable[[Any, Registry], Iterable[Found]]]
    documents: Documents
    registry: Registry
    tools: dict[str, Any]

    @classmethod
    def read_folder(cls, root: Path) -> Folder:
        """The folder's documents, its registry and its shape errors (these lazily)."""
        documents = cls.read_documents(root)
        registry = cls.build_registry(documents)
        return documents, registry, cls.shape_errors(documents, registry)

    @classmethod
    def from_folder(cls, root: Path) -> Any:
        """The spec of the folder ``root``; SpecFileError for its first problem of shape."""
        documents, registry, found = cls.read_folder(root)
        for path, pointer, message in found:
            raise SpecFileError(Path(path), pointer, message)
        return cls(documents, registry)  # type: ignore[call-arg]

    @property
    def contract(self) -> dict[str, Any]:
        return self.documents.catalogue("contract.json")

    @cached_property
    def families(self) -> dict[str, str]:
        return dict(self.documents.catalogue("rules.json")["families"])

    @cached_property
    def rules(self) -> dict[str, Any]:
        items = self.documents.catalogue("rules.json")["rules"]
        return {r["id"]: self.rule_type.from_dict(r) for r in items}

    def tool(self, name: str) -> Any:
        """The tool of that name; KeyError names the known tools otherwise."""
        try:
            return self.tools[name]
        except KeyError:
            raise KeyError(
                f"unknown tool {name!r}; the contract has {sorted(self.tools)}"
            ) from None


def folder_loader(
    from_folder: Callable[[Path], S], packaged_root: Path
) -> Callable[[Path | str | None], S]:
    """``load(root)``: the spec of the folder ``root`` (default: ``packaged_root``), loaded once
    per folder."""
    load_folder = cache(from_folder)

    def load(root: Path | str | None = None) -> S:
        return load_folder(Path(root).resolve() if root is not None else packaged_root)

    return load
