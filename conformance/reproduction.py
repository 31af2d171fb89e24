"""Stand-alone pytest reproductions of what the Hypothesis-driven checks found.

A failure of a Hypothesis-driven check (the lifecycle model check, the generated arguments
check) carries its example's Hypothesis choices, and the part of the check's search that made
them when it runs several (``ledger.Reproduction``). ``write_reproductions`` turns each into a
pytest file in the report folder that runs that one example again against the same target
(``reproduce``): the test fails while the server still breaks the rule, and passes once it is
fixed. The file names the target as its descriptor keeps the name it was made from
(``TargetDescriptor.origin``: a descriptor file by its full path, the reference server of a
contract, a stdio command line or a URL), and the contract the run tested. It needs the kit,
the same Hypothesis version (the choices are in its format) and the target reachable as it was.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import hypothesis
from engram_conformance.reports import replace_file

from .contracts import every_settings
from .ledger import Failure, Reproduction
from .request import RunRequest, ready, run_request
from .runner import RunResult
from .targets.choice import KINDS, NotOneTarget, named_descriptor

FOLDER = "reproductions"


class ReproductionUnusable(Exception):
    """The reproduction cannot run here: another Hypothesis version, a target named as no
    descriptor is (a file of an older kit, which named the options of ``run``), or a rule the
    run could not decide."""


def reproduce(
    target: Mapping[str, str],
    *,
    contract: str | None = None,
    check: str,
    rule: str,
    seed: int,
    hypothesis_version: str,
    choices: str,
    part: str | None = None,
) -> None:
    """Run the example of ``choices`` against ``target`` (one name, ``targets.choice``:
    ``{"descriptor": PATH}``, ``{"reference": CONTRACT}``, ``{"stdio": COMMAND_LINE}`` or
    ``{"url": URL}``) as a host of ``contract`` (None: the descriptor's, else the one
    ``tools/list`` shows), in ``part`` of the check's search (None: its only one; files that
    name none are of a check with one search): AssertionError with the evidence if ``check``
    still finds ``rule`` broken, ReproductionUnusable if it cannot run here."""
    try:
        descriptor = named_descriptor(target, every_settings())
    except NotOneTarget:
        raise ReproductionUnusable(
            f"the reproduction names its target as {dict(target)!r}, not by one of "
            f"{', '.join(KINDS)}: an older engram-conformance wrote it (naming the options of "
            "engram-conformance run); run engram-conformance run again to write it anew"
        ) from None
    if hypothesis_version != hypothesis.__version__:
        raise ReproductionUnusable(
            f"the example is in the format of Hypothesis {hypothesis_version}; "
            f"this is {hypothesis.__version__}: pip install hypothesis=={hypothesis_version}"
        )
    request = RunRequest(
        target=descriptor,
        contract=contract,
        profile="full",
        only=(rule,),
        seed=seed,
        example=Reproduction(check, hypothesis_version, choices, part),
    )
    _, result, _ = run_request(ready(request))
    evidence = result.ledger.evidence.get(rule)
    failures = [f for f in evidence.failures if f.check == check] if evidence else []
    if failures:
        failure = failures[0]
        raise AssertionError(f"{rule} is still broken.\n{failure.expected}\n{failure.observed}")
    errors = evidence.errors if evidence else []
    if errors:
        raise ReproductionUnusable(f"{rule} could not be decided: {'; '.join(errors)}")


def write_reproductions(
    result: RunResult, report_dir: Path, target: Mapping[str, str] | None, contract: str
) -> dict[tuple[str, str], str]:
    """One pytest file per failure that carries its example, naming ``target`` (a descriptor's
    ``origin``) and ``contract``; (rule, check) -> path relative to the report folder. None for
    ``target``: the target cannot be named again (a descriptor built in code)."""
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
            text = _test_file(rule, failure, failure.reproduction, target, contract, result.seed)
            replace_file(folder / name, text)
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
    target: Mapping[str, str],
    contract: str,
    seed: int,
) -> str:
    header = (
        f"Reproduces the failure of {rule} that engram-conformance's check {failure.check} "
        f"found (seed {seed}).\nExpected: {failure.expected}\nObserved: {failure.observed}\n\n"
        "The test fails while the server still breaks the rule and passes once it is fixed.\n"
        f"It needs engram-conformance with pytest (pip install 'engram-conformance[repro]'), "
        f"hypothesis=={reproduction.hypothesis} and the target reachable as it was: "
        "pytest THIS_FILE"
    )
    return f"""{_comment(header)}

from engram_conformance.conformance.reproduction import reproduce


def test_{_identifier(rule)}_{failure.check}() -> None:
    reproduce(
        {dict(target)!r},
        contract={contract!r},
        check={failure.check!r},
        rule={rule!r},
        seed={seed!r},
        hypothesis_version={reproduction.hypothesis!r},
        choices={reproduction.choices!r},{_part(reproduction)}
    )
"""


def _part(reproduction: Reproduction) -> str:
    """The ``part`` argument of the file's call, when its check runs several searches."""
    if reproduction.part is None:
        return ""
    return f"\n        part={reproduction.part!r},"
