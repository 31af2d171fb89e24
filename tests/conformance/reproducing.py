"""What the tests of reproduction files share: a file run as its user runs it, and an example
met again against the reference, which has none of the planted bugs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engram_conformance.conformance.ledger import Reproduction
from engram_conformance.conformance.reproduction import reproduce


def fails_while_broken(test_file: Path, rule: str) -> None:
    """``test_file`` (``REPORT_DIR/reproductions/...``), run by pytest from its report folder,
    fails saying that ``rule`` is still broken."""
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        capture_output=True,
        text=True,
        cwd=test_file.parents[1],
        timeout=300,
        check=False,
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert f"{rule} is still broken" in ran.stdout


def on_the_reference(example: Reproduction, rule: str, seed: int = 1) -> None:
    """``example`` met again against the reference of engram-memory (``reproduce``)."""
    reproduce(
        {"reference": "engram-memory"},
        contract="engram-memory",
        check=example.check,
        rule=rule,
        seed=seed,
        hypothesis_version=example.hypothesis,
        choices=example.choices,
        part=example.part,
    )
