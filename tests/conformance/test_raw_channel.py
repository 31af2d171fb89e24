"""Arguments the SDK cannot write (an unpaired surrogate, an infinite number) travel byte-exact
over a raw channel, over stdio and HTTP, bound as the binding says: the reference answers them
INVALID_SCHEMA (SCHEMA-032 passes), a server reading them leniently is caught, and a server
answering garbage is a fault with its bytes, not a traceback."""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any, ClassVar

import anyio
import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.engram_memory.host import Host, Identity
from engram_conformance.conformance.engram_memory.signed_meta import ContextSigner
from engram_conformance.conformance.exceptions import ServerFault
from engram_conformance.conformance.observation import Observation
from engram_conformance.conformance.session import Session
from engram_conformance.conformance.targets import raw_channel
from engram_conformance.conformance.targets.descriptor import TargetDescriptor
from engram_conformance.conformance.targets.json_text import infinities_named, json_text, sdk_writes
from engram_conformance.conformance.targets.launch import LaunchedTarget, Workspace
from engram_conformance.conformance.targets.reference import reference_descriptor
from engram_conformance.conformance.transcripts import read_transcript
from engram_conformance.reports.document import load as load_report
from engram_conformance.spec.engram_memory import load
from engram_conformance.strategies.engram_memory import envelopes

from ..mutants.caught import assert_caught
from ..mutants.described import planted, run_described
from ..mutants.engram_memory.base import ServiceProxy
from ..mutants.engram_memory.catalog.framing import STDIO
from .inprocess import run_against
from .test_binding_adapters import ENV_BOUND, carried

FIXTURES = Path(__file__).with_name("fixtures")
SEARCH = "engram_memory_search"
CAPTURE = "engram_memory_capture"
RULE = "SCHEMA-032"
REFERENCE = reference_descriptor()
REFERENCE_HTTP = TargetDescriptor(
    name="reference-http",
    transport="http",
    url="http://127.0.0.1:{port}/mcp",
    command=(*REFERENCE.command, "--http", "--port", "{port}"),
    headers={"Authorization": "Bearer {file[http.token]}"},
)
#: the same, as the kit ships it for vendors to start from
SHIPPED_HTTP = Path(__file__).parents[2] / "targets" / "reference-http.toml"
HEADER_BOUND = TargetDescriptor(
    name="header-bound",
    transport="http",
    url="http://127.0.0.1:{port}/mcp",
    command=(sys.executable, str(FIXTURES / "echo_binding_server.py"), "http", "{port}"),
    tables={"binding": {"mode": "http-headers", "headers": {"X-Engram-Tenant": "{tenant}"}}},
)
GARBAGE = TargetDescriptor(
    name="garbage",
    transport="stdio",
    command=(sys.executable, str(FIXTURES / "misbehaving_server.py"), "garbage"),
)
LENIENT = (sys.executable, str(FIXTURES / "lenient_json_server.py"))
LONE_SURROGATE = "ranking \ud800 decision"


def test_json_text_writes_lone_surrogates_and_infinities_as_json() -> None:
    document = {"q": LONE_SURROGATE, "up": math.inf, "down": [-math.inf], "s": "1e400"}
    text = json_text(document)
    assert text == '{"q":"ranking \\ud800 decision","up":1e400,"down":[-1e400],"s":"1e400"}'
    assert json.loads(text) == document
    assert not sdk_writes(document["q"]) and not sdk_writes(document["down"])
    assert sdk_writes({"q": "ranking decision", "limit": 10})
    with pytest.raises(ValueError):
        json_text(math.nan)
    assert infinities_named(document)["down"] == ["-Infinity"]  # JSON data for a report


async def searches(
    descriptor: TargetDescriptor, root: Path, arguments: list[dict[str, Any]]
) -> list[tuple[Observation, Identity]]:
    """A search with each of ``arguments``, then a plain one, against ``descriptor``'s target,
    each as a fresh identity (with its purpose): the observations and the identities."""
    spec = load()
    signer = ContextSigner(spec)
    host = Host(spec, signer, "raw")
    workspace = Workspace(root, signer.write_public_key(root / "k.pem"))
    target = LaunchedTarget(descriptor, workspace, carried(descriptor))
    done = []
    async with target.connect() as connection:
        session = Session(connection, 10)
        for sent in [*arguments, {"query": "ranking decision"}]:
            identity = host.new_identity()
            claims = host.claims(identity, SEARCH)
            call = {**sent, "purpose_ref": identity.purpose_ref}
            done.append((await session.call(SEARCH, call, host.meta(claims), claims), identity))
    return done


@pytest.mark.parametrize("descriptor", [REFERENCE, REFERENCE_HTTP], ids=["stdio", "http"])
def test_the_reference_refuses_what_only_the_raw_channel_sends(
    tmp_path: Path, descriptor: TargetDescriptor
) -> None:
    sent = [{"query": LONE_SURROGATE}, {"query": "ranking decision", "limit": math.inf}]
    (surrogate, _), (infinite, _), (plain, _) = anyio.run(searches, descriptor, tmp_path, sent)
    for observed in (surrogate, infinite):
        assert observed.outcome == "result", observed.fault
        assert envelopes.code(observed) == "INVALID_SCHEMA"
    assert surrogate.arguments["query"] == LONE_SURROGATE  # recorded as sent
    assert envelopes.ok(plain)  # the SDK's client goes on after them


@pytest.mark.parametrize("descriptor", [ENV_BOUND, HEADER_BOUND], ids=["process-env", "headers"])
def test_each_identity_gets_a_raw_channel_bound_to_it(
    tmp_path: Path, descriptor: TargetDescriptor
) -> None:
    sent = [{"query": LONE_SURROGATE}, {"query": LONE_SURROGATE}]
    for observed, identity in anyio.run(searches, descriptor, tmp_path, sent)[:2]:
        assert json.loads(observed.text or "{}")["bound_tenant"] == identity.tenant


class Recording(ServiceProxy):
    """The reference, keeping every argument object it is called with."""

    seen: ClassVar[list[Any]] = []

    def call(self, tool: str, arguments: Any, context: Any) -> dict[str, Any]:
        self.seen.append(arguments)
        return super().call(tool, arguments, context)


def test_in_process_the_server_gets_the_objects_as_they_are(tmp_path: Path) -> None:
    """The SDK's client in process would dump an infinite number to null first."""
    result = run_against(tmp_path, service_mutant=Recording, only=(RULE,))
    assert result.verdicts[RULE].verdict == "pass"
    assert any(at(a, "payload", "primary_event", "at") == math.inf for a in Recording.seen)


async def garbage_fault(root: Path) -> Observation:
    spec = load()
    signer = ContextSigner(spec)
    target = LaunchedTarget(GARBAGE, Workspace(root, signer.write_public_key(root / "k.pem")))
    async with target.connect() as connection:
        session = Session(connection, 10)
        with pytest.raises(ServerFault):
            await session.call(SEARCH, {"query": LONE_SURROGATE}, None, None)
        return session.transcript[-1]


def test_garbage_on_the_raw_channel_is_a_fault_quoting_its_bytes(tmp_path: Path) -> None:
    observed = anyio.run(garbage_fault, tmp_path)
    assert observed.outcome == "fault"
    assert "not JSON: b'this is not JSON-RPC \\x00" in (observed.fault or "")


def run(tmp_path: Path, *target: str) -> Any:
    """``engram-conformance run`` of SCHEMA-032 against ``target``: the report document."""
    arguments = ["run", *target, "--only", RULE, "--report-dir", str(tmp_path / "report")]
    CliRunner().invoke(main, arguments, catch_exceptions=False)
    return load_report(tmp_path / "report" / "report.json")


def descriptor_file(tmp_path: Path, name: str, server: dict[str, Any]) -> str:
    path = tmp_path / f"{name}.toml"
    lines = [f"{key} = {json.dumps(value)}" for key, value in server.items()]
    path.write_text(f'name = "{name}"\n[server]\n' + "\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def verdict(document: Any) -> Any:
    return next(rule for rule in document.rules if rule.id == RULE)


def test_schema_032_passes_against_the_reference_over_stdio(tmp_path: Path) -> None:
    assert verdict(run(tmp_path, "--reference")).verdict == "pass"


def test_schema_032_passes_against_the_reference_over_http(tmp_path: Path) -> None:
    """The shipped descriptor: the server started on a port, its token sent from its file."""
    assert verdict(run(tmp_path, "--target", str(SHIPPED_HTTP))).verdict == "pass"


def lenient_run(tmp_path: Path, mode: str) -> Any:
    """SCHEMA-032 of the run against the lenient fixture in ``mode``."""
    command = [*LENIENT, mode, "{state_dir}", "{host_public_key_file}"]
    target = descriptor_file(tmp_path, "lenient", {"transport": "stdio", "command": command})
    return verdict(run(tmp_path, "--target", target))


def at(document: Any, *steps: str) -> Any:
    """The value at ``steps`` in ``document`` (None where there is none)."""
    for step in steps:
        document = document.get(step) if isinstance(document, dict) else None
    return document


def examples_of(tool: str) -> list[str]:
    return [e.name for e in load().examples if e.tool == tool and e.rule == RULE]


def test_a_server_reading_such_arguments_leniently_is_caught(tmp_path: Path) -> None:
    """Its answers to the examples are successes: SCHEMA-032 (a profile rule) warns, naming
    them, and the transcripts hold the arguments as sent, as JSON that reads back and replays:
    against the reference, those calls (and only those) are answered differently."""
    rule = lenient_run(tmp_path, "all")
    assert rule.verdict == "warn"
    expected = " ".join(failure.expected for failure in rule.failures)
    for example in ("query-lone-high-surrogate", "text-lone-high-surrogate"):
        assert f"'{example}'" in expected
    capture = next(f for f in rule.failures if f.check.startswith("capture_")).transcript
    transcript = tmp_path / "report" / capture
    sent = [entry["arguments"] for entry in read_transcript(transcript)]
    assert any(at(arguments, "payload", "valid_time", "t") == -math.inf for arguments in sent)
    replayed = CliRunner().invoke(main, ["replay", str(transcript), "--reference"])
    assert replayed.exit_code == 1, replayed.output
    differing = len(examples_of(CAPTURE))
    assert replayed.output.endswith(
        f"{len(sent)} calls replayed, {differing} answered differently\n"
    )


def test_an_infinite_number_read_as_zero_is_caught(tmp_path: Path) -> None:
    """The report, JSON data, shows the infinite numbers sent as "Infinity" and "-Infinity"."""
    rule = lenient_run(tmp_path, "numbers")
    assert rule.verdict == "warn"
    infinite = [name for name in examples_of(CAPTURE) if name.endswith("-infinite")]
    assert len(rule.failures) == len(infinite) == 2
    for failure, name in zip(rule.failures, infinite, strict=True):
        assert f"'{name}'" in failure.expected
    shown = [call.arguments for failure in rule.failures for call in failure.calls]
    assert any(at(arguments, "payload", "valid_time", "t") == "-Infinity" for arguments in shown)
    assert any(at(arguments, "payload", "primary_event", "at") == "Infinity" for arguments in shown)


def test_requests_left_unanswered_are_waited_for_once_per_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that never answers a request with a bad id (four of them) gets the same verdict,
    and costs one time-out per run of the check, not one per request: each probe hands over
    as soon as the ping sent after it is answered, and the check waits for the four at once.
    HOST-025 is a profile rule: its ``warn`` is not checked again (``recheck``), so that one
    wait is the run's whole cost. Here, not among the mutants' tests: it is about the harness's
    waiting, and kills nothing new."""
    probes: list[tuple[raw_channel.Probe, bool]] = []  # and whether it came back in time
    waits: list[tuple[int, float]] = []
    probe, settle = raw_channel._Stdio.probe, raw_channel._Stdio.settle

    async def probing(self: Any, *arguments: Any) -> raw_channel.Probe:
        sent = await probe(self, *arguments)
        probes.append((sent, time.monotonic() < sent.deadline))
        return sent

    async def settling(self: Any, sent: list[raw_channel.Probe]) -> None:
        outstanding = sum(1 for one in sent if not one.settled)
        started = time.monotonic()
        await settle(self, sent)
        waits.append((outstanding, time.monotonic() - started))

    monkeypatch.setattr(raw_channel._Stdio, "probe", probing)
    monkeypatch.setattr(raw_channel._Stdio, "settle", settling)
    timeout_s = 3.0
    server = planted("engram_memory.framing", "drops-bad-ids")
    found = run_described(tmp_path, server, "HOST-025", mutant="drops-bad-ids", call_timeout_s=3)
    assert_caught(found, STDIO["drops-bad-ids"][1])
    assert [outstanding for outstanding, _ in waits] == [4]  # no re-check of a warn
    # one time-out each, not one per request (four would be 12 s), whatever the machine's load
    assert all(seconds < 2 * timeout_s for _, seconds in waits)
    unanswered = [(one, early) for one, early in probes if one.answer is None]
    assert len(unanswered) == 4
    # each handed over once the ping after it was answered, before its time-out ran out
    assert all(one.ping_ms is not None and early for one, early in unanswered)
    failures = found["HOST-025"].failures
    assert len(failures) == 4
    assert all("a ping sent right after it was answered" in f.observed for f in failures)
