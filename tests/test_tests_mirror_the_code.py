"""The tests mirror the code, for every registered contract: where a part (``spec/``,
``strategies/``, ``reference_impl/``, ``conformance/``, ``reports/``) holds a contract's
sub-package, ``tests/<part>/<package>/`` holds its tests, and the contract's mutants, which prove
its checks fire, are in ``tests/mutants/<package>/``. The tests of the shared code stay at the
top of their part's folder."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .layout import REPO_ROOT, contract_packages, package_dirs

TESTS = REPO_ROOT / "tests"
#: where a contract's mutants are, beside the tests of the part its checks are in
MUTANTS = "mutants"


def code_parts() -> dict[str, Path]:
    """Each installed part by its folder's name (``conformance`` -> the folder)."""
    return {folder.name: folder for folder in package_dirs().values()}


def expected_test_folders(package: str, parts: Mapping[str, Path]) -> list[str]:
    """The test folders (relative to ``tests/``) a contract whose sub-packages are named
    ``package`` needs: one per part holding such a sub-package, and one of mutants when it
    has checks (a ``conformance`` sub-package)."""
    holding = sorted(part for part, folder in parts.items() if (folder / package).is_dir())
    if "conformance" in holding:
        holding.append(MUTANTS)
    return [f"{part}/{package}" for part in holding]


def missing_test_folders(
    packages: Mapping[str, str], parts: Mapping[str, Path], tests: Path
) -> list[str]:
    """``contract: tests/<part>/<package>/`` for each test folder a contract of ``packages``
    (name -> sub-package) lacks: absent, not a package, or holding no test module."""
    missing = []
    for contract, package in packages.items():
        for folder in expected_test_folders(package, parts):
            found = tests / folder
            if not (found / "__init__.py").is_file() or not any(found.glob("test_*.py")):
                missing.append(f"{contract}: tests/{folder}/")
    return missing


def test_every_registered_contract_has_its_test_folders() -> None:
    packages = contract_packages()
    assert set(packages) >= {"engram-memory", "mem"}
    assert missing_test_folders(packages, code_parts(), TESTS) == []


def test_the_contracts_have_a_test_folder_in_each_part_but_reports() -> None:
    """The reports know no contract: they have no sub-package, so no test folder per contract."""
    assert expected_test_folders("mem", code_parts()) == [
        "conformance/mem",
        "reference_impl/mem",
        "spec/mem",
        "strategies/mem",
        "mutants/mem",
    ]


def test_a_contract_without_its_test_folder_is_caught(tmp_path: Path) -> None:
    code, tests = tmp_path / "code", tmp_path / "tests"
    for part in ("spec", "conformance"):
        for package in ("kept", "left"):
            (code / part / package).mkdir(parents=True)
    (code / "reports").mkdir()
    for folder in ("spec/kept", "conformance/kept", "mutants/kept", "spec/left"):
        (tests / folder).mkdir(parents=True)
        (tests / folder / "__init__.py").touch()
        (tests / folder / "test_it.py").touch()
    (tests / "conformance" / "left").mkdir()  # a folder, but no package and no test module
    (tests / "conformance" / "left" / "helpers.py").touch()
    parts = {folder.name: folder for folder in code.iterdir()}
    packages = {"kept-contract": "kept", "left-contract": "left"}
    assert missing_test_folders(packages, parts, tests) == [
        "left-contract: tests/conformance/left/",
        "left-contract: tests/mutants/left/",
    ]
