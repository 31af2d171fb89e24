"""Two fuzz workers share one Redis example database: one finds a bug planted in the server,
and the next campaign on that database replays it before anything new: allowed one example,
that example is a failing one the first campaign stored.

A real ``redis-server`` is started on 127.0.0.1, on a free port, with no persistence; the test
skips, saying so, where the binary is absent (``.ci/run`` installs it when it can).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.fuzzing import found_rules, run_campaign
from engram_conformance.conformance.targets.launch import free_port
from hypothesis.core import decode_failure
from hypothesis.database import choices_to_bytes

PLANTED = Path(__file__).with_name("planted_reference.py")
#: The rules the planted bug breaks: a capture replay answers another candidate, and so do
#: the answers to a capture retried after its answer was lost, or sent several times at once.
PLANTED_BREAKS = {"IDEM-001", "IDEM-012", "IDEM-013"}
#: How long redis-server may take to answer its first ping.
REDIS_STARTUP_S = 10.0


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server)")
    port = free_port()
    command = [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly"]
    server = subprocess.Popen(
        [*command, "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        _answers(url, server)
        yield url
    finally:
        server.terminate()
        server.wait()


def _answers(url: str, server: subprocess.Popen[bytes]) -> None:
    """Return once the server at ``url`` answers a ping (it is starting)."""
    client = redis.Redis.from_url(url)
    give_up_at = time.monotonic() + REDIS_STARTUP_S
    while True:
        try:
            client.ping()
            return
        except redis.ConnectionError:
            if server.poll() is not None or time.monotonic() > give_up_at:
                raise
            time.sleep(0.05)


def _planted_target(folder: Path) -> Path:
    """A descriptor of the reference with the bug planted, over stdio."""
    command = [
        sys.executable,
        str(PLANTED),
        "serve",
        "--contract",
        "engram-memory",
        "--state-dir",
        "{state_dir}",
        "--host-public-key",
        "{host_public_key_file}",
    ]
    quoted = ", ".join(f'"{part}"' for part in command)
    path = folder / "planted.toml"
    path.write_text(
        f'name = "planted"\n[contract]\nname = "engram-memory"\n'
        f'[server]\ntransport = "stdio"\ncommand = [{quoted}]\n',
        "utf-8",
    )
    return path


def test_a_worker_finds_the_planted_bug_and_the_next_campaign_replays_it_first(
    redis_url: str, tmp_path: Path
) -> None:
    """Bounded by examples alone (12 a worker; the planted bug is met within a few), not by
    time: the machine this runs on may be loaded."""
    target = {"descriptor": str(_planted_target(tmp_path))}
    first = run_campaign(
        target,
        "engram-memory",
        workers=2,
        seed=1,
        database=redis_url,
        seconds=None,
        examples=24,
        folder=tmp_path / "first",
    )
    assert [outcome.worker for outcome in first] == [1, 2]
    assert all(0 < outcome.examples <= 12 for outcome in first), first
    found = found_rules(first)
    assert found, first
    assert set(found) <= PLANTED_BREAKS, found.keys()
    reproductions = [f.reproduction for fs in found.values() for _, f in fs]
    assert all(path is not None and path.is_file() for path in reproductions), reproductions
    stored = _stored_examples(redis_url)
    assert stored, "the workers wrote their examples to Redis"

    # the next campaign may run one example only: the failure the first one stored
    result = CliRunner().invoke(
        main,
        [
            "fuzz",
            "--target",
            target["descriptor"],
            "--database",
            redis_url,
            "--examples",
            "1",
            "--seed",
            "7",
            "--output",
            str(tmp_path / "second"),
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 1, result.output
    said = result.output.splitlines()
    assert "  worker 1: 1 examples in 1 round(s); first failure at example 1 of round 1" in said
    replayed = {line.split()[0] for line in said if re.match(r"\S+ (fail|warn) \(", line)}
    assert replayed, result.output
    assert replayed <= PLANTED_BREAKS, replayed
    # that one example is one the first campaign stored in Redis: the choices it made up to the
    # broken expectation begin a stored example (the server's answers to calls sent at once
    # may differ from run to run, so the model may see the bug a step earlier or later)
    files = [Path(line.split("pytest ", 1)[1]) for line in said if "reproduce: pytest " in line]
    assert files, result.output
    for file in files:
        (blob,) = re.findall(r"choices='([A-Za-z0-9+/=]+)'", file.read_text("utf-8"))
        made = choices_to_bytes(decode_failure(blob.encode("ascii")))
        assert any(example.startswith(made) for example in stored), file


def _stored_examples(url: str) -> set[bytes]:
    """Every example any key of Hypothesis' Redis database at ``url`` holds."""
    client = redis.Redis.from_url(url)
    return {
        member
        for key in client.scan_iter(match=b"hypothesis-example:*")
        if client.type(key) == b"set"
        for member in client.smembers(key)
    }
