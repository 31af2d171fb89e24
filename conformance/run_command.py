"""``engram-conformance run``: drive a target through the checks, write the reports, exit 0/1/2."""

from __future__ import annotations

import secrets
import shlex
import sys
import tempfile
from pathlib import Path

import anyio
import click
from engram_conformance.reports.writer import write_reports
from engram_conformance.spec import load

from .baseline import Baseline, BaselineError
from .bindings.signed_meta import ContextSigner
from .cli import EXIT_UNUSABLE, main
from .exceptions import StartupFailed
from .host import Host
from .report import build_document, write_transcripts
from .runner import RunOptions, run
from .targets.descriptor import DescriptorError, TargetDescriptor, load_descriptor
from .targets.launch import LaunchedTarget, Workspace
from .targets.reference import reference_descriptor


def _descriptor(
    target: Path | None, reference: bool, stdio: str | None, url: str | None
) -> TargetDescriptor:
    chosen = [x for x in (target, stdio, url) if x] + ([True] if reference else [])
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --target, --reference, --stdio, --url")
    if target:
        return load_descriptor(target)
    if reference:
        return reference_descriptor()
    if stdio:
        return TargetDescriptor(name=stdio, transport="stdio", command=tuple(shlex.split(stdio)))
    return TargetDescriptor(name=str(url), transport="http", url=url)


@main.command("run")
@click.option(
    "--target", type=click.Path(dir_okay=False, path_type=Path), help="A target descriptor (TOML)."
)
@click.option("--reference", is_flag=True, help="The bundled reference server.")
@click.option("--stdio", metavar="CMD", help="A stdio server command line (default policy).")
@click.option("--url", metavar="URL", help="A streamable HTTP endpoint (default policy).")
@click.option("--profile", type=click.Choice(["quick", "full"]), default="quick", show_default=True)
@click.option(
    "--only",
    multiple=True,
    metavar="RULE-OR-FAMILY",
    help="Only these rules or families (repeatable, or comma-separated).",
)
@click.option("--seed", type=int, help="Seed of the generated data (default: random, reported).")
@click.option(
    "--budget", type=float, metavar="SECONDS", help="Stop starting checks after this long."
)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("engram-conformance-report"),
    show_default=True,
)
@click.option(
    "--baseline", type=click.Path(dir_okay=False, path_type=Path), help="Known failures (JSON)."
)
def run_command(
    target: Path | None,
    reference: bool,
    stdio: str | None,
    url: str | None,
    profile: str,
    only: tuple[str, ...],
    seed: int | None,
    budget: float | None,
    report_dir: Path,
    baseline: Path | None,
) -> None:
    """Run the conformance suite against a server; exit 0 (no fail), 1 (some fail) or 2."""
    spec = load()
    try:
        descriptor = _descriptor(target, reference, stdio, url)
        known = Baseline.load(baseline, set(spec.rules)) if baseline else None
    except (DescriptorError, BaselineError) as error:
        click.echo(f"engram-conformance: {error}", err=True)
        sys.exit(EXIT_UNUSABLE)
    wanted = tuple(part.strip() for item in only for part in item.split(",") if part.strip())
    options = RunOptions(
        profile=profile,
        only=wanted,
        seed=seed,
        budget_s=budget,
        binding_mode=descriptor.binding_mode,
    )
    signer = ContextSigner(spec)
    with tempfile.TemporaryDirectory(prefix="engram-conformance-") as scratch:
        root = Path(scratch)
        workspace = Workspace(root, signer.write_public_key(root / "host-public-key.pem"))
        launched = LaunchedTarget(descriptor, workspace)
        host = Host(spec, signer, secrets.token_hex(3))
        try:
            result = anyio.run(run, launched, spec, descriptor.policy, host, options)
        except StartupFailed as error:
            click.echo(f"engram-conformance: {error}", err=True)
            sys.exit(EXIT_UNUSABLE)
    report_dir.mkdir(parents=True, exist_ok=True)
    transcripts = write_transcripts(result, report_dir)
    command = shlex.join(["engram-conformance", *sys.argv[1:]])
    document = build_document(
        spec,
        result,
        options,
        launched,
        descriptor=descriptor.source,
        command=command,
        baseline=known,
        transcript_paths=transcripts,
    )
    written = write_reports(document, report_dir)
    click.echo(document["conformance"]["summary"])
    for rule in document["rules"]:
        if rule["verdict"] in ("fail", "error") or rule["baseline"] == "stale":
            reason = rule["reason"] or (rule["failures"][0]["expected"] if rule["failures"] else "")
            click.echo(f"  {rule['verdict'].upper():5} {rule['id']:11} {reason}"[:160])
    click.echo(f"reports: {', '.join(str(path) for path in written.values())}")
    sys.exit(document["exit_code"])
