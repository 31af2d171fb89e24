"""HOST-025 against the reference: passes over stdio and streamable HTTP (the byte-exact path),
not applicable in process, where no text travels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.engram_memory.checks import framing
from engram_conformance.conformance.targets.raw_channel import RawChannel
from engram_conformance.reports.document import load as load_report

from ..inprocess import run_against
from ..test_raw_channel import REFERENCE, REFERENCE_HTTP

RULE = "HOST-025"


def _verdict(tmp_path: Path, *target: str) -> Any:
    report = tmp_path / "report"
    arguments = ["run", *target, "--only", RULE, "--report-dir", str(report)]
    CliRunner().invoke(main, arguments, catch_exceptions=False)
    return next(rule for rule in load_report(report / "report.json").rules if rule.id == RULE)


@pytest.mark.parametrize("descriptor", [REFERENCE, REFERENCE_HTTP], ids=["stdio", "http"])
def test_the_reference_answers_malformed_json_rpc(tmp_path: Path, descriptor: Any) -> None:
    server = {"transport": descriptor.transport, "command": list(descriptor.command)}
    if descriptor.url is not None:
        server["url"] = descriptor.url
    lines = [f"{key} = {json.dumps(value)}" for key, value in server.items()]
    # the credential the reference requires over HTTP, as its descriptor sends it
    lines += [f"headers.{name} = {json.dumps(value)}" for name, value in descriptor.headers.items()]
    target = tmp_path / "target.toml"
    target.write_text('name = "reference"\n[server]\n' + "\n".join(lines) + "\n", "utf-8")
    verdict = _verdict(tmp_path, "--target", str(target))
    assert verdict.verdict == "pass", verdict.failures


def test_in_process_no_malformed_text_can_be_sent(tmp_path: Path) -> None:
    verdict = run_against(tmp_path, only=(RULE,)).verdicts[RULE]
    assert verdict.verdict == "not_applicable"
    assert "in process" in (verdict.reason or "")


class _ClosedChannel(RawChannel):
    """A raw channel whose stream is gone: a request raises an error with no message."""

    async def _request(self, request_id: int, text: str, method: str, name: str | None) -> Any:
        raise anyio.ClosedResourceError


@pytest.mark.anyio
async def test_an_error_with_no_message_is_named_by_its_type() -> None:
    """A channel closed under a probe says so, not "no answer: " with nothing after it."""
    case = framing._cases()[0]
    probe = await _ClosedChannel().probe(lambda _id: "{}", case.method, case.name, 1.0)
    assert probe.answer is None
    assert probe.fault == "no answer: ClosedResourceError"
