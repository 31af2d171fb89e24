"""A run of the harness's CLI against a stdio server that a descriptor starts: for mutants only a
server reading text (or one the harness stops) can have, which ``run_against`` cannot plant in
process (``stdio_server.py`` plants them). The mutation-score recorder wraps ``run_described`` as
it wraps ``run_against``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.reports.document import load as load_report

STDIO_SERVER = Path(__file__).with_name("stdio_server.py")


def planted(family: str, mutant: str) -> list[str]:
    """The command of the reference over stdio with ``<contract>/catalog/<family>.py``'s
    ``mutant``, the ``family`` named ``<contract>.<family>`` (``mem.restart``)."""
    return [sys.executable, str(STDIO_SERVER), family, mutant, "serve"]


def run_described(
    tmp_path: Path,
    server: list[str],
    only: str,
    *,
    mutant: str,
    call_timeout_s: float | None = None,
    state_files: bool = False,
    contract: str | None = None,
) -> dict[str, Any]:
    """The report's rules (by id) of a run of the ``only`` rules against ``server`` (a stdio
    command, given the run's state folder and host key; with ``contract``, that contract's
    reference serving, given its name and the state folder), named ``mutant`` in the report."""
    lines = [f"name = {json.dumps(mutant)}"]
    if contract is None:
        arguments = ["--state-dir", "{state_dir}", "--host-public-key", "{host_public_key_file}"]
    else:
        arguments = ["--contract", contract, "--state-dir", "{state_dir}"]
        lines += ["[contract]", f"name = {json.dumps(contract)}"]
    command = [*server, *arguments]
    lines += ["[server]", 'transport = "stdio"']
    lines.append(f"command = {json.dumps(command)}")
    if call_timeout_s is not None:
        lines.append(f"call_timeout_s = {call_timeout_s}")
    if state_files:
        lines += ["[state]", 'files = ["{state_dir}/**"]']
    target = tmp_path / f"{mutant}.toml"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = tmp_path / "report"
    arguments = ["run", "--target", str(target), "--only", only, "--report-dir", str(report)]
    CliRunner().invoke(main, arguments, catch_exceptions=False)
    return {rule.id: rule for rule in load_report(report / "report.json").rules}
