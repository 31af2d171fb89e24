"""The rule index (issue 26, item 9): ``rules`` and ``explain`` read a generated file instead of
loading the spec and importing every check module, so they start in a fraction of a second; the
file is kept equal to what loading and importing give."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from engram_conformance.conformance import contracts
from engram_conformance.conformance.rule_index import document_of, index_file, text_of
from engram_conformance.spec import registry

#: What a command that only reads the index, or only parses its options, must not import.
HEAVY = ("mcp", "mcp_types", "hypothesis", "engram_conformance.conformance.engram_memory.checks")


@pytest.mark.parametrize("contract", contracts.names())
def test_the_shipped_index_is_what_the_spec_and_the_checks_give(contract: str) -> None:
    if registry.registration(contract).rule_index is None:
        pytest.skip(f"{contract} ships no rule index: rules and explain import its checks")
    path = index_file(contract)
    assert path is not None and path.is_file()
    assert path.read_text(encoding="utf-8") == text_of(document_of(contract)), (
        f"{path} is stale: run python -m engram_conformance.conformance.rule_index"
    )


def test_the_index_holds_per_call_checks_and_labelled_examples() -> None:
    document = json.loads(index_file("engram-memory").read_text(encoding="utf-8"))
    assert "answers_are_results_or_the_two_protocol_errors" in document["checks"]["ENV-010"]
    named = {(e["rule"], e["tool"], e["name"]) for e in document["examples"]}
    assert ("SCHEMA-019", "engram_memory_get", "record-id-uppercase") in named


def _heavy_modules_imported_by(*arguments: str) -> list[str]:
    """The modules of ``HEAVY`` that ``engram-conformance ARGUMENTS`` imports, in a fresh
    process (the command's own output left out)."""
    script = (
        "import contextlib, io, sys\n"
        "from engram_conformance.conformance.cli.app import main\n"
        f"sys.argv = ['engram-conformance', *{list(arguments)!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main()\n    except SystemExit as stop:\n        code = stop.code\n"
        "assert code == 0, code\n"
        f"heavy = {HEAVY!r}\n"
        "print(*sorted(m for m in sys.modules if any(m == h or m.startswith(h + '.')"
        " for h in heavy)))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


@pytest.mark.parametrize(
    "arguments",
    [
        ("--help",),
        ("--version",),
        ("rules",),
        ("rules", "--contract", "mem"),
        ("explain", "SCHEMA-019"),
        ("explain", "PRIV-001"),
    ],
    ids=" ".join,
)
def test_the_quick_commands_import_neither_the_sdk_nor_hypothesis_nor_the_checks(
    arguments: tuple[str, ...],
) -> None:
    assert _heavy_modules_imported_by(*arguments) == []
