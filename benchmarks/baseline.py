"""Another version of a module, loaded from its file so that a benchmark times it beside today's
in the same run: ``git show REV:path/module.py > /tmp/module_before.py``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_baseline(path: Path, name: str) -> ModuleType:
    """The module in ``path``, registered as ``name`` (its dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load a baseline from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
