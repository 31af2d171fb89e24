"""The kit against a mem server written from seed 003 alone (``seed_written_server.py``): its
own answer forms (structured content beside a text of its own), its own argument names where
the seed names none (a search's ``query``, a summary's four sections), string ids it issues
(``obs_…``, ``ses_…``) and only the twelve tools the seed names.

It keeps the protocol, so it must read no ``fail`` and no ``error``, and most rules must pass;
what it does not keep reads ``warn`` under a ``should`` or ``profile`` rule, each listed here
with why, so that a change of the kit that reads it otherwise shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from engram_conformance.reports.document import load as load_report

from ..slowness import without_late_warnings

SERVER = Path(__file__).with_name("seed_written_server.py")
EXECUTABLE = Path(sys.executable).with_name("engram-conformance")
#: what the server does otherwise than upstream promises, each a warning of its own
WARNED = {
    "DISC-004": "its input schemas are no widening of an upstream version line",
    "DISC-005": "mem_save's annotations have no title",
    "DISC-009": "its instructions do not name mem_search",
    "ERR-002": "an unknown tool is an isError result, not JSON-RPC -32602",
    "SAVE-011": "a save without topic_key suggests none",
    "TOPIC-005": "its suggestion is a sentence, not the bare key",
    "TOPIC-014": "a title of no word suggests no key",
    "DEDUP-004": "dedupe compares the scope too",
    "DEDUP-006": "dedupe compares the content's case",
    "DEL-007": "a second soft delete succeeds",
    "SRCH-003": "a limit above 20 is cut to 20",
    "SRCH-006": "a query of quotes is refused",
    "SRCH-007": "a query of operators is refused",
    "PASS-002": "a '## Key Learnings:' list is not captured",
    "PRIV-001": "no <private> redaction",
    "PRIV-002": "no <private> redaction",
    "PRIV-003": "no <private> redaction",
    "PRIV-004": "no <private> redaction",
    "PRIV-005": "no <private> redaction",
    "SRCH-011": "a phrase of 500 words over repetitive memories takes seconds",
}
#: the fewest rules that must pass (issue 22: at least 60)
LEAST_PASSED = 60
RUN_TIMEOUT_S = 300  # about 25 s here
#: SRCH-011's phrase keeps this server's one thread busy until the call times out, in the run and
#: again in its recheck: 10 s (the default) spent 20 s of its CPU there alone, half of the run's;
#: 4 s gives the same verdicts (its other calls answer in well under a second)
CALL_TIMEOUT_S = 4


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, Path]:
    where = tmp_path_factory.mktemp("seed-written")
    descriptor = where / "seed-written.toml"
    descriptor.write_text(
        'name = "seed-written"\n[contract]\nname = "mem"\n[server]\ntransport = "stdio"\n'
        f"call_timeout_s = {CALL_TIMEOUT_S}\n"
        f"command = [{str(sys.executable)!r}, {str(SERVER)!r}]\n"
        'env = { MEMSERVER_DATA = "{state_dir}" }\ncwd = "{work_dir}"\n',
        encoding="utf-8",
    )
    arguments = [str(EXECUTABLE), "run", "--target", str(descriptor)]
    done = subprocess.run(
        [*arguments, "--report-dir", str(where / "report")],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        cwd=where,
        check=False,
    )
    return done, where / "report"


def test_a_server_written_from_the_seed_alone_reads_no_fail_and_no_error(
    report: tuple[subprocess.CompletedProcess, Path],
) -> None:
    done, folder = report
    shown = f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode == 0, shown
    assert "Traceback" not in done.stdout + done.stderr, shown
    verdicts = {rule.id: rule for rule in load_report(folder / "report.json").rules}
    by = {kind: {r for r, v in verdicts.items() if v.verdict == kind} for kind in ("fail", "error")}
    assert by == {"fail": set(), "error": set()}, shown
    passed = [rule for rule, verdict in verdicts.items() if verdict.verdict == "pass"]
    assert len(passed) >= LEAST_PASSED, shown


def test_what_it_does_otherwise_than_upstream_reads_warn_each_under_its_rule(
    report: tuple[subprocess.CompletedProcess, Path],
) -> None:
    _, folder = report
    # on a loaded machine another call may answer after its timing rule's threshold too
    rules = without_late_warnings(load_report(folder / "report.json").rules, WARNED)
    warned = {rule.id for rule in rules if rule.verdict == "warn"}
    assert warned == set(WARNED)
    assert all(rule.level != "must" for rule in rules if rule.verdict == "warn")
