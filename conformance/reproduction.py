"""Stand-alone pytest reproductions of what the Hypothesis-driven checks found.

A failure of the lifecycle model check carries its example's Hypothesis choices
(``ledger.Reproduction``). ``write_reproductions`` turns each into a pytest file in the report
folder that runs that one example again against the same target (``reproduce``): the test fails
while the server still breaks the rule, and passes once it is fixed. The file needs the kit,
the same Hypothesis version (the choices are in its format) and the target reachable as it was.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import hypothesis

from .launching import chosen_contract, run_launched
from .ledger import Failure, Reproduction
from .runner import RunOptions, RunResult
from .target_options import chosen_descriptor

FOLDER = "reproductions"
#: The target options a reproduction can name (those of ``engram-conformance run``).
TARGET_OPTIONS = ("target", "reference", "stdio", "url", "contract")


class ReproductionUnusable(Exception):
    """The reproduction cannot run here: another Hypothesis version, or no such target."""


def target_arguments(
    target: Path | None, reference: bool, stdio: str | None, url: str | None, contract: str
) -> dict[str, Any]:
    """The run's target options, as a reproduction names them (a descriptor by its full path),
    and the contract the run tested."""
    chosen = {
        "target": str(target.resolve()) if target else None,
        "reference": reference or None,
        "stdio": stdio,
        "url": url,
        "contract": contract,
    }
    return {name: value for name, value in chosen.items() if value}


def reproduce(
    target: Mapping[str, Any],
    *,
    check: str,
    rule: str,
    seed: int,
    hypothesis_version: str,
    choices: str,
) -> None:
    """Run the example of ``choices`` against ``target``: AssertionError with the evidence if
    ``check`` still finds ``rule`` broken, ReproductionUnusable if it cannot run here."""
    if hypothesis_version != hypothesis.__version__:
        raise ReproductionUnusable(
            f"the example is in the format of Hypothesis {hypothesis_version}; "
            f"this is {hypothesis.__version__}: pip install hypothesis=={hypothesis_version}"
        )
    unknown = set(target) - set(TARGET_OPTIONS)
    if unknown:
        raise ReproductionUnusable(f"unknown target options {sorted(unknown)}")
    descriptor = chosen_descriptor(
        Path(target["target"]) if "target" in target else None,
        bool(target.get("reference")),
        target.get("stdio"),
        target.get("url"),
        target.get("contract"),
    )
    plugin = chosen_contract(descriptor, target.get("contract"))
    options = RunOptions(
        profile="full",
        only=(rule,),
        seed=seed,
        binding_mode=descriptor.binding_mode,
        example=Reproduction(check, hypothesis_version, choices),
    )
    result, _ = run_launched(plugin, plugin.load_spec(), descriptor, options)
    evidence = result.ledger.evidence.get(rule)
    failures = [f for f in evidence.failures if f.check == check] if evidence else []
    if failures:
        failure = failures[0]
        raise AssertionError(f"{rule} is still broken.\n{failure.expected}\n{failure.observed}")
    errors = evidence.errors if evidence else []
    if errors:
        raise ReproductionUnusable(f"{rule} could not be decided: {'; '.join(errors)}")


def write_reproductions(
    result: RunResult, report_dir: Path, target: Mapping[str, Any] | None
) -> dict[tuple[str, str], str]:
    """One pytest file per failure that carries its example; (rule, check) -> path relative
    to the report folder. None for ``target``: the target cannot be named again (in-process)."""
    if target is None:
        return {}
    paths = {}
    for rule, evidence in sorted(result.ledger.evidence.items()):
        for failure in evidence.failures:
            if failure.reproduction is None or (rule, failure.check) in paths:
                continue
            name = f"test_{_identifier(rule)}_{failure.check}.py"
            folder = report_dir / FOLDER
            folder.mkdir(parents=True, exist_ok=True)
            text = _test_file(rule, failure, failure.reproduction, target, result.seed)
            (folder / name).write_text(text, "utf-8")
            paths[(rule, failure.check)] = f"{FOLDER}/{name}"
    return paths


def _identifier(text: str) -> str:
    return re.sub(r"\W", "_", text).lower()


def _comment(text: str) -> str:
    """``text`` as comment lines, every character printable ASCII (a server's answer may hold
    anything)."""
    lines = [ascii(line)[1:-1] for line in text.splitlines()]
    return "\n".join(f"# {line}".rstrip() for line in lines)


def _test_file(
    rule: str,
    failure: Failure,
    reproduction: Reproduction,
    target: Mapping[str, Any],
    seed: int,
) -> str:
    header = (
        f"Reproduces the failure of {rule} that engram-conformance's check {failure.check} "
        f"found (seed {seed}).\nExpected: {failure.expected}\nObserved: {failure.observed}\n\n"
        "The test fails while the server still breaks the rule and passes once it is fixed.\n"
        f"It needs engram-conformance, hypothesis=={reproduction.hypothesis} and the target "
        "reachable as it was: pytest THIS_FILE"
    )
    return f"""{_comment(header)}

from engram_conformance.conformance.reproduction import reproduce


def test_{_identifier(rule)}_{failure.check}() -> None:
    reproduce(
        {dict(target)!r},
        check={failure.check!r},
        rule={rule!r},
        seed={seed!r},
        hypothesis_version={reproduction.hypothesis!r},
        choices={reproduction.choices!r},
    )
"""
