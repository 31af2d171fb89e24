"""A bug the lifecycle machine finds becomes a stand-alone pytest file that fails while the bug
is there and passes against a server without it; failing examples are kept in the report
folder's example database."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import hypothesis
import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.engram_memory.checks import model_check
from engram_conformance.conformance.ledger import Reproduction
from engram_conformance.conformance.reproduction import ReproductionUnusable, reproduce

from .reproducing import fails_while_broken, on_the_reference

PLANTED = Path(__file__).parent / "fixtures" / "planted_bug_server.py"
COMMAND = shlex.join([sys.executable, str(PLANTED), "{state_dir}", "{host_public_key_file}"])
RULE = "IDEM-001"
CHECK = "lifecycle_model_holds"


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report folder of a full run over stdio against the planted bug, its machine only.
    Its shrinking stops at the first example that makes the finding no smaller: what these
    tests show holds for any example the machine keeps, however far it was shrunk."""
    report_dir = tmp_path_factory.mktemp("report")
    arguments = ["run", "--stdio", COMMAND, "--profile", "full", "--only", RULE, "--seed", "1"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(model_check, "SHRINK_PATIENCE", 0)
        result = CliRunner().invoke(
            main, [*arguments, "--report-dir", str(report_dir)], catch_exceptions=False
        )
    assert result.exit_code == 1, result.output
    return report_dir


def machine_failure(report_dir: Path) -> dict:
    document = json.loads((report_dir / "report.json").read_text(encoding="utf-8"))
    (rule,) = [r for r in document["rules"] if r["id"] == RULE]
    return next(f for f in rule["failures"] if f["check"] == CHECK)


def test_the_report_names_the_reproduction_file(found: Path) -> None:
    failure = machine_failure(found)
    name = f"reproductions/test_idem_001_{CHECK}.py"
    assert (
        failure["reproduce"] == f"pytest {found / name}"
    )  # runs as printed, from the run's folder
    text = (found / name).read_text(encoding="utf-8")
    # the target as its descriptor names it, and the contract the run tested
    assert f"{{'stdio': {COMMAND!r}}},\n        contract='engram-memory'," in text
    assert "hypothesis_version=" in text
    assert "part=" not in text, "the machine runs one search: its files are as they were"


def test_the_reproduction_fails_while_the_bug_is_there(found: Path) -> None:
    fails_while_broken(found / f"reproductions/test_idem_001_{CHECK}.py", RULE)


def test_the_reproduction_passes_against_a_server_without_the_bug(found: Path) -> None:
    text = (found / f"reproductions/test_idem_001_{CHECK}.py").read_text(encoding="utf-8")
    choices = text.split("choices=")[1].split("'")[1]
    version = text.split("hypothesis_version=")[1].split("'")[1]
    on_the_reference(Reproduction(CHECK, version, choices), RULE)


def test_a_reproduction_from_another_hypothesis_version_says_so() -> None:
    with pytest.raises(ReproductionUnusable, match=r"pip install hypothesis==0\.0\.1"):
        reproduce(
            {"reference": "engram-memory"},
            check=CHECK,
            rule=RULE,
            seed=1,
            hypothesis_version="0.0.1",
            choices="AA==",
        )


@pytest.mark.parametrize(
    "target",
    [{"reference": True, "contract": "engram-memory"}, {"target": "/x/target.toml"}, {}],
    ids=["flags", "old-option", "none"],
)
def test_a_reproduction_that_names_no_one_target_says_so(target: dict) -> None:
    """The files of an older kit named the options of ``run``; they stop with a reason."""
    with pytest.raises(ReproductionUnusable, match="older engram-conformance"):
        reproduce(
            target,
            check=CHECK,
            rule=RULE,
            seed=1,
            hypothesis_version=hypothesis.__version__,
            choices="AA==",
        )


def test_failing_examples_are_kept_under_the_report_folder(found: Path) -> None:
    kept = found / "hypothesis" / CHECK
    assert any(path.is_file() for path in kept.rglob("*")), "the example database is empty"
