"""One run against a target, from descriptor to report document: what ``engram-conformance run``
and the pytest plugin share (each then writes the reports and says the verdicts its own way),
and the defaults both give a run.

The pytest plugin reads the defaults whenever pytest starts, whether it runs the harness or not,
so this module imports the harness only when ``run_target`` runs.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram_conformance.reports import ReportDocument

    from .document import Reproducing
    from .request import PreparedRun, RunRequest
    from .runner import Progress

#: Where the reports go unless told otherwise.
DEFAULT_REPORT_DIR = Path("engram-conformance-report")
#: The example database's folder in the report folder, unless told otherwise.
EXAMPLE_DB = "hypothesis"


def run_target(
    request: PreparedRun | RunRequest,
    report_dir: Path,
    *,
    command: str,
    progress: Progress | None = None,
) -> ReportDocument:
    """Start a ``request.ready`` run's target (once), run the checks its options select
    against it as the host, and return the report document (not yet written).

    The transcripts of failing checks and the reproduction files are written into
    ``report_dir`` (created if missing), since the document names them; a reproduction names
    the target by the descriptor's ``origin`` (none is written for a descriptor built in
    code). Raises StartupFailed when the server would not start, Unusable when the contract
    the server speaks does not fit the request (``request.run_request``).

    With the era ``both`` it is a run in each era, reported as one (``both_eras``).
    """
    from .request import PreparedRun, descriptor_of
    from .targets.eras import BOTH

    descriptor = request.descriptor if isinstance(request, PreparedRun) else descriptor_of(request)
    one = functools.partial(_run_one, command=command, progress=progress)
    if descriptor.era != BOTH:
        return one(request, report_dir)
    from .both_eras import run_each_era

    return run_each_era(request, report_dir, one)


def _run_one(
    request: PreparedRun | RunRequest,
    report_dir: Path,
    *,
    command: str,
    progress: Progress | None,
) -> ReportDocument:
    """``run_target`` in the one era the request names (or ``auto``)."""
    from .document import build_document, write_transcripts
    from .reproduction import write_reproductions
    from .request import run_request

    with hypothesis_home(report_dir / EXAMPLE_DB):
        prepared, result, server = run_request(request, progress)
    contract, descriptor, options = prepared.contract, prepared.descriptor, prepared.options
    report_dir.mkdir(parents=True, exist_ok=True)
    transcripts = write_transcripts(result, report_dir)
    reproductions = write_reproductions(result, report_dir, descriptor.origin, contract.name)
    return build_document(
        prepared.spec,
        result,
        options,
        server,
        descriptor=descriptor.source,
        command=command,
        baseline=prepared.baseline,
        transcript_paths=transcripts,
        reproductions=reproductions,
        reproducing=reproducing(report_dir, descriptor.origin, contract.name),
    )


def reproducing(report_dir: Path, origin: dict[str, str] | None, contract: str) -> Reproducing:
    """How this run's failures are reproduced from the folder it was made in: the files under
    ``report_dir``, the target by the name the run was given (``TargetDescriptor.origin``;
    none for one built in code) and the contract."""
    from .document import Reproducing

    kind, name = next(iter(origin.items())) if origin else ("", "")
    target = {
        "descriptor": ["--target", name],
        "reference": ["--reference"],
        "stdio": ["--stdio", name],
        "url": ["--url", name],
    }.get(kind, [])
    return Reproducing(report_dir, (*target, "--contract", contract) if target else ())


@contextmanager
def hypothesis_home(folder: Path) -> Iterator[None]:
    """Hypothesis keeps what it writes besides the example database (its cache of constants)
    in ``folder`` while a run lasts, not in ``.hypothesis/`` of the current folder, which may
    be the server's working folder or the user's own."""
    from hypothesis.configuration import set_hypothesis_home_dir, storage_directory

    before = storage_directory(intent_to_write=False).home_directory
    set_hypothesis_home_dir(folder)
    try:
        yield
    finally:
        set_hypothesis_home_dir(before)
