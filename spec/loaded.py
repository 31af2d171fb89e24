"""What both contracts' loaded specs share: the registry of a folder's schemas, reading a folder
and checking its shape, the rule catalogue, tool lookup, and loading each folder once."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable
from functools import cache, cached_property
from importlib.metadata import version
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
        """The folder's documents, its registry and its shape errors (an iterable: found as it
        is read where the contract's ``shape_errors`` yields them, all at once where it returns
        a list, as mem's does; ``from_folder`` spells the steps out so as to skip them)."""
        documents = cls.read_documents(root)
        registry = cls.build_registry(documents)
        return documents, registry, cls.shape_errors(documents, registry)

    @classmethod
    def from_folder(cls, root: Path) -> Any:
        """The spec of the folder ``root``; SpecFileError for its first problem of shape.

        Checking the shape is most of a load's cost (the meta-schemas' validation, about 0.15 s),
        and every process of a run, the kit's and each reference server's, loads a spec: a
        shape found clean is remembered by the digest of what decides it (``_clean_marker``),
        so that the same folder is checked once, not once per process."""
        documents = cls.read_documents(root)
        registry = cls.build_registry(documents)
        clean = _clean_marker(cls, documents)
        if clean is None or not clean.exists():
            for path, pointer, message in cls.shape_errors(documents, registry):
                raise SpecFileError(Path(path), pointer, message)
            _remember(clean)
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


def _clean_marker(spec_type: type[LoadedSpec], documents: Documents) -> Path | None:
    """The file whose presence says that a folder of exactly these ``documents`` was found of
    clean shape by this very check: its name is the SHA-256 of the documents as parsed, the
    source of the modules that read them and check their shape, and the version of jsonschema
    (any change to one is a new name, so checked afresh). None where there is no user cache
    folder (no home): then the shape is checked every time."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    try:  # a relative XDG_CACHE_HOME is to be ignored (XDG Base Directory Specification)
        folder = Path(cache) if Path(cache).is_absolute() else Path.home() / ".cache"
    except RuntimeError:
        return None
    digest = hashlib.sha256(json.dumps(documents.by_path).encode())
    for function in (spec_type.read_documents, spec_type.shape_errors):
        digest.update(Path(sys.modules[function.__module__].__file__ or "").read_bytes())
    digest.update(version("jsonschema").encode())
    return folder / "engram-conformance" / "spec-shape" / digest.hexdigest()


def _remember(marker: Path | None) -> None:
    """Leave the clean ``marker`` (empty); a cache that cannot be written only costs time."""
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass


def folder_loader(
    from_folder: Callable[[Path], S], packaged_root: Path
) -> Callable[[Path | str | None], S]:
    """``load(root)``: the spec of the folder ``root`` (default: ``packaged_root``), loaded once
    per folder."""
    load_folder = cache(from_folder)

    def load(root: Path | str | None = None) -> S:
        return load_folder(Path(root).resolve() if root is not None else packaged_root)

    return load
