"""The kit installs under one namespace, ships its spec data, and ignores the caller's folders."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from engram_conformance.spec import registry
from engram_conformance.spec.engram_memory import PACKAGED_ROOT

REPO_ROOT = Path(__file__).resolve().parent.parent
PARTS = ("spec", "reference_impl", "conformance", "strategies", "reports")


def test_every_part_imports_under_the_namespace() -> None:
    code = "import importlib; [importlib.import_module('engram_conformance.' + p) for p in PARTS]"
    code = f"PARTS = {PARTS!r}; {code}"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_callers_own_spec_and_reports_folders_do_not_shadow_the_kit(tmp_path: Path) -> None:
    for folder in ("spec", "reports", "conformance"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("raise ImportError('the caller folder')\n")
    code = (
        "import engram_conformance.spec.engram_memory as s, engram_conformance.reports; "
        "print(s.PACKAGED_ROOT)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert Path(result.stdout.strip()) == PACKAGED_ROOT
    lint = Path(sys.executable).with_name("engram-conformance")
    run = subprocess.run([lint, "spec", "lint"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("spec lint: ok")


def test_the_wheel_ships_every_spec_file(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO_ROOT),
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    [wheel] = tmp_path.glob("engram_conformance-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {
        name.removeprefix("engram_conformance/spec/")
        for name in names
        if name.startswith("engram_conformance/spec/") and name.endswith(".json")
    }
    in_repo = {
        p.relative_to(REPO_ROOT / "spec").as_posix() for p in (REPO_ROOT / "spec").rglob("*.json")
    }
    assert shipped == in_repo
    # the rule indexes that ``rules`` and ``explain`` read (conformance/rule_index.py), of
    # every registered contract that has one
    indexes = [registry.registration(name).rule_index for name in registry.names()]
    for package, _, file in (index.partition(":") for index in indexes if index):
        assert f"{package.replace('.', '/')}/{file}" in names
