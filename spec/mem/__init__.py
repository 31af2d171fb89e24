"""The mem contract as data: the ``mem_*`` protocol of seed 003 (El Protocolo de Memoria), whose
real implementation is the Go server Gentleman-Programming/engram.

``load()`` reads the spec shipped with this package once: the rule catalogue (``.rules``), the
tools of each upstream version line (``.lines``: v1.7.0, v1.20.0, v3.7.2), their union
(``.tools``), the tools seed 003 names (``.seed_tools``) and the seed's statements with their
trace to the rules (``.statements``, ``.trace()``). ``widenings`` says which lines a server's
tools/list widens compatibly, and what breaks the others.
"""

from __future__ import annotations

from pathlib import Path

from ..json_files import SpecFileError
from ..loaded import folder_loader
from ._files import PACKAGED_ROOT
from ._model import Evidence, LineTool, MemTool, Rule, SeedStatement, ToolLine
from ._spec import MemSpec
from .widening import Break, HintDifference, Listing, Widening, widening, widenings

__all__ = [
    "PACKAGED_ROOT",
    "Break",
    "Evidence",
    "HintDifference",
    "LineTool",
    "Listing",
    "MemSpec",
    "MemTool",
    "Rule",
    "SeedStatement",
    "SpecFileError",
    "ToolLine",
    "Widening",
    "load",
    "widening",
    "widenings",
]


_load = folder_loader(MemSpec.from_folder, PACKAGED_ROOT)


def load(root: Path | str | None = None) -> MemSpec:
    """The mem spec in ``root`` (default: the one shipped with this package), loaded once per
    folder."""
    return _load(root)
