"""Optional: the harness against real third-party MCP servers, none of them an Engram memory
server (docs/peers.md). Each run must give a clean report, with no traceback anywhere: the summary's
first line says no Engram memory tools were discovered, the report holds the discovery facts (the
server and the tools it lists), the discovery rule HOST-020 (profile: a missing tool is
legitimate) warns, every other rule is ``not_applicable``, and the exit code is 1 (a server
offering none of the six tools is class ``none``, which never passes).

The peers are installed by ``tests/peers/install.sh`` into ``$ENGRAM_PEERS_DIR`` (default
``~/.cache/engram-conformance/peers``); a peer that is not installed, or whose runtime (Node.js)
is absent, is skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from engram_conformance.reports.document import load as load_report

from ..conftest import REPO_ROOT

EXECUTABLE = Path(sys.executable).with_name("engram-conformance")
PEERS_DIR = Path(
    os.environ.get("ENGRAM_PEERS_DIR") or Path.home() / ".cache" / "engram-conformance" / "peers"
).resolve()
RUN_TIMEOUT_S = 120  # each run takes seconds: the harness stops after discovery
REPORTS = ("report.json", "summary.md", "junit.xml", "report.html")


@dataclass(frozen=True)
class Peer:
    descriptor: str  # in targets/peers/
    entry: str  # the file that must exist under PEERS_DIR
    node: bool
    server: str  # serverInfo.name
    tools: frozenset[str]  # what the pinned version (tests/peers/install.sh) lists


EVERYTHING_ENTRY = "server-everything/node_modules/@modelcontextprotocol/server-everything"
EVERYTHING_TOOLS = frozenset(
    {
        "echo",
        "get-annotated-message",
        "get-env",
        "get-resource-links",
        "get-resource-reference",
        "get-structured-content",
        "get-sum",
        "get-tiny-image",
        "gzip-file-as-resource",
        "simulate-research-query",
        "toggle-simulated-logging",
        "toggle-subscriber-updates",
        "trigger-long-running-operation",
    }
)
PEERS = {
    "server-everything-stdio": Peer(
        "server-everything-stdio.toml",
        f"{EVERYTHING_ENTRY}/dist/index.js",
        True,
        "mcp-servers/everything",
        EVERYTHING_TOOLS,
    ),
    "server-everything-http": Peer(
        "server-everything-http.toml",
        f"{EVERYTHING_ENTRY}/dist/index.js",
        True,
        "mcp-servers/everything",
        EVERYTHING_TOOLS,
    ),
    "server-memory": Peer(
        "server-memory.toml",
        "server-memory/node_modules/@modelcontextprotocol/server-memory/dist/index.js",
        True,
        "memory-server",
        frozenset(
            {
                "add_observations",
                "create_entities",
                "create_relations",
                "delete_entities",
                "delete_observations",
                "delete_relations",
                "open_nodes",
                "read_graph",
                "search_nodes",
            }
        ),
    ),
    "mcp-server-time": Peer(
        "mcp-server-time.toml",
        "mcp-server-time/bin/mcp-server-time",
        False,
        "mcp-time",
        frozenset({"convert_time", "get_current_time"}),
    ),
}


def installed(peer: Peer) -> Path:
    """The peer's install folder, or a skip saying why the peer cannot run here."""
    if peer.node and shutil.which("node") is None:
        pytest.skip("Node.js is not installed: the Node peers cannot run (docs/peers.md)")
    if not (PEERS_DIR / peer.entry).is_file():
        pytest.skip(
            f"{peer.entry.split('/')[0]} is not installed in {PEERS_DIR}: run "
            "tests/peers/install.sh and set ENGRAM_PEERS_DIR (docs/peers.md)"
        )
    return PEERS_DIR


def run_peer(
    descriptor: str, tmp_path: Path, timeout_s: float, *options: str
) -> subprocess.CompletedProcess[str]:
    """``engram-conformance run`` of ``targets/peers/DESCRIPTOR`` with ``options``, from a
    scratch folder, its reports in ``tmp_path/report``."""
    arguments = [
        str(EXECUTABLE),
        "run",
        "--target",
        str(REPO_ROOT / "targets" / "peers" / descriptor),
        *options,
        "--report-dir",
        str(tmp_path / "report"),
    ]
    return subprocess.run(
        arguments,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env={**os.environ, "ENGRAM_PEERS_DIR": str(PEERS_DIR)},
        cwd=tmp_path,
        check=False,
    )


@pytest.mark.parametrize("name", sorted(PEERS))
def test_a_peer_gets_a_clean_report_of_no_engram_tools(name: str, tmp_path: Path) -> None:
    peer = PEERS[name]
    installed(peer)
    report_dir = tmp_path / "report"
    done = run_peer(peer.descriptor, tmp_path, RUN_TIMEOUT_S, "--profile", "quick")
    shown = f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.returncode == 1, shown
    for text in (done.stdout, done.stderr, *((report_dir / r).read_text() for r in REPORTS)):
        assert "Traceback" not in text, shown

    document = load_report(report_dir / "report.json")  # valid against the report schema
    first_line = "No Engram memory tools discovered: the server lists none of the six tools"
    assert document.conformance.summary.startswith(first_line)
    assert done.stdout.splitlines()[0] == document.conformance.summary
    summary = (report_dir / "summary.md").read_text(encoding="utf-8")
    assert summary.splitlines()[0] == document.conformance.summary
    assert document.conformance.conformance_class == "none"
    assert document.exit_code == 1

    assert document.target.server_info is not None
    assert document.target.server_info.name == peer.server
    assert set(document.conformance.tools_listed) == peer.tools
    verdicts = {rule.id: rule for rule in document.rules}
    assert verdicts["HOST-020"].verdict == "warn"
    for failure in verdicts["HOST-020"].failures:  # what it lists is the evidence
        assert all(f'"{tool}"' in failure.observed for tool in peer.tools), failure.observed
    others = [rule for rule in document.rules if rule.id != "HOST-020"]
    assert others and all(rule.verdict == "not_applicable" and rule.reason for rule in others)
