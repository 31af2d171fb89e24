"""What the layout guards read of the tree: the five installed parts and where each registered
contract lives in them (``test_import_graph.py``, ``test_tests_mirror_the_code.py``)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from engram_conformance.spec import registry

REPO_ROOT = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, Path]:
    """Installed package name -> folder, from pyproject.toml's ``package-dir``."""
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = pyproject["tool"]["setuptools"]["package-dir"]
    return {package: REPO_ROOT / folder for package, folder in mapping.items()}


def contract_packages() -> dict[str, str]:
    """Every registered contract -> its sub-package name (``engram-memory`` ->
    ``engram_memory``): its folder in each part that has one, as its plug-in's module path
    (``engram_conformance.conformance.<package>.plugin``) shows."""
    return {
        name: registry.registration(name).plugin.split(":")[0].split(".")[2]
        for name in registry.names()
    }
