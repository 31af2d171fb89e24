"""The kit's packages, found in the five folders that pyproject.toml's ``package-dir`` maps
under the ``engram_conformance`` namespace (setuptools' own ``packages.find`` cannot add the
prefix): a new sub-package, or a folder of spec data, ships without a hand-kept list."""

import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup

ROOT = Path(__file__).parent
MAPPING = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"
]["package-dir"]

setup(
    packages=[
        name
        for package, folder in MAPPING.items()
        for name in (
            package,
            *(
                f"{package}.{found}"
                for found in find_namespace_packages(str(ROOT / folder), exclude=["*__pycache__*"])
            ),
        )
    ]
)
