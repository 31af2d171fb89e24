"""The core speaks no contract: no module of the harness core or of the reports names a word of
one contract's vocabulary (issue 24).

The core is ``conformance/*.py``, ``conformance/targets/``, ``conformance/cli/`` and
``reports/`` (their Python and JSON files); a contract's words belong in its own sub-packages
(``conformance/<contract>/``, ``spec/<contract>/``, ...). ``ALLOWED`` lists what the core still
says, file by file and word by word, each with the reason it is there: the test fails on a word
not listed and on a listed word the file no longer says, so that the list can only shrink (as
``KNOWN_CIRCLES`` does in ``test_import_graph``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

#: A contract's words, as a pattern each: engram-memory's identity claims, binding modes, policy
#: keys and tool names; mem's tool names, dedupe window, answer tables and Engram's variables.
VOCABULARY = {
    "tenant": r"tenant",
    "principal": r"principal",
    "agent_id": r"agent_id",
    "purpose_ref": r"purpose_ref",
    "signed-meta": r"signed-meta",
    "process-env": r"process-env",
    "http-headers": r"http-headers",
    "binding": r"binding",
    "admission": r"admission",
    "rejects_secrets": r"rejects_secrets",
    "retain_allowed": r"retain_allowed",
    "retention_ceiling": r"retention_ceiling",
    "confirmation_required": r"confirmation_required",
    "reconciliation": r"reconciliation",
    "redacted_fields": r"redacted_fields",
    "semantic_channel": r"semantic_channel",
    "engram_memory_": r"engram_memory_",
    "spec/engram_memory": r"spec/engram_memory",
    "mem_": r"(?<![A-Za-z0-9])mem_",
    "dedupe": r"dedupe",
    "[answers": r"\[answers",
    "ENGRAM_": r"(?-i:ENGRAM_)(?!CONFORMANCE)",
}
_PATTERN = re.compile("|".join(f"(?P<w{i}>{p})" for i, p in enumerate(VOCABULARY.values())), re.I)
_NAMES = list(VOCABULARY)

#: What the core still says, (file, word) -> why. Shrink it as the words move to the plug-ins.
ALLOWED: dict[tuple[str, str], str] = {
    ("reports/report.schema.json", "engram_memory_"): "an example tool name in a description",
}


def core_files() -> Iterator[Path]:
    """The core's Python and JSON files."""
    conformance = REPO_ROOT / "conformance"
    yield from sorted(conformance.glob("*.py"))
    for folder in (conformance / "targets", conformance / "cli", REPO_ROOT / "reports"):
        yield from sorted(p for p in folder.rglob("*") if p.suffix in (".py", ".json"))


def contract_words(text: str) -> set[str]:
    """The vocabulary's words ``text`` says."""
    return {
        _NAMES[int(name[1:])]
        for found in _PATTERN.finditer(text)
        for name, value in found.groupdict().items()
        if value is not None
    }


def said() -> dict[tuple[str, str], int]:
    """(core file, word) -> on how many lines the file says it."""
    found: dict[tuple[str, str], int] = {}
    for path in core_files():
        where = path.relative_to(REPO_ROOT).as_posix()
        for line in path.read_text(encoding="utf-8").splitlines():
            for word in contract_words(line):
                found[where, word] = found.get((where, word), 0) + 1
    return found


def test_a_line_naming_a_contract_word_is_caught() -> None:
    assert contract_words('binding_mode = "signed-meta"  # {tenant}') == {
        "binding",
        "signed-meta",
        "tenant",
    }
    assert contract_words('env = {"ENGRAM_DATA_DIR": "{state_dir}"}') == {"ENGRAM_"}
    assert contract_words("calls mem_save, reads [answers.mem_save]") == {"mem_", "[answers"}
    assert contract_words("[policy] dedupe_window_s, confirmation_required") == {
        "dedupe",
        "confirmation_required",
    }


def test_a_line_of_the_core_s_own_words_is_not() -> None:
    assert not contract_words("from engram_conformance.spec import registry")
    assert not contract_words("the run's state folder, ENGRAM_CONFORMANCE_CAMPAIGN, memory")
    assert not contract_words("engram-conformance run --contract NAME; a tool's claim")


def test_the_core_names_no_contract_word_but_the_allowed_ones() -> None:
    found = said()
    unexplained = sorted(f"{path}: {word}" for path, word in found if (path, word) not in ALLOWED)
    assert not unexplained, "the core names a contract's words: " + "; ".join(unexplained)


def test_every_allowed_word_is_still_said() -> None:
    """A word the core no longer says leaves the allow-list (it only shrinks)."""
    found = said()
    gone = sorted(f"{path}: {word}" for path, word in ALLOWED if (path, word) not in found)
    assert not gone, "no longer said, remove from ALLOWED: " + "; ".join(gone)
