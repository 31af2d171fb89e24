"""One run against a target, from descriptor to report document: what ``engram-conformance run``
and the pytest plugin share (each then writes the reports and says the verdicts its own way)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engram_conformance.reports import ReportDocument

from .baseline import Baseline
from .contracts import Contract
from .document import build_document, write_transcripts
from .launching import run_launched
from .reproduction import write_reproductions
from .runner import Progress, RunOptions
from .targets.descriptor import TargetDescriptor


def run_target(
    contract: Contract,
    spec: Any,
    descriptor: TargetDescriptor,
    options: RunOptions,
    report_dir: Path,
    *,
    reached_by: Mapping[str, Any],
    command: str,
    baseline: Baseline | None = None,
    progress: Progress | None = None,
) -> ReportDocument:
    """Start the descriptor's target, run the checks ``options`` select against it as the host,
    and return the report document (not yet written).

    The transcripts of failing checks and the reproduction files are written into
    ``report_dir`` (created if missing), since the document names them; ``reached_by`` is how
    a reproduction reaches the target again (``reproduction.target_arguments``). Raises
    StartupFailed when the server would not start.
    """
    result, server = run_launched(contract, spec, descriptor, options, progress)
    report_dir.mkdir(parents=True, exist_ok=True)
    transcripts = write_transcripts(result, report_dir)
    reproductions = write_reproductions(result, report_dir, reached_by)
    return build_document(
        spec,
        result,
        options,
        server,
        descriptor=descriptor.source,
        command=command,
        baseline=baseline,
        transcript_paths=transcripts,
        reproductions=reproductions,
    )
