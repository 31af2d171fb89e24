"""Write a run's report folder: report.json, validated first, and the renderings made from it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from . import html, junit, markdown, sarif
from .document import ReportDocument, validate

#: Format -> file name inside the report folder.
FILE_NAMES = {
    "json": "report.json",
    "junit": "junit.xml",
    "markdown": "summary.md",
    "html": "report.html",
    "sarif": "report.sarif",
}
#: The formats written only when asked for; the others are always written.
OPTIONAL_FORMATS = ("sarif",)


def write_reports(
    document: ReportDocument | Mapping[str, Any],
    report_dir: Path | str,
    formats: Iterable[str] = (),
) -> dict[str, Path]:
    """Write the four reports of ``document`` into ``report_dir`` (created if missing), and
    those of ``formats``, a choice of ``OPTIONAL_FORMATS`` (ValueError for another).

    ``document`` is a ReportDocument or its JSON data. Nothing is written unless the document
    is valid (InvalidReport otherwise). When
    ``GITHUB_STEP_SUMMARY`` names a file, the Markdown is appended to it, as GitHub Actions
    gathers several steps' summaries in that one file. Returns the path written per format.
    """
    wanted = set(formats)
    unknown = sorted(wanted - set(OPTIONAL_FORMATS))
    if unknown:
        raise ValueError(f"no such optional report format: {', '.join(unknown)}")
    if isinstance(document, ReportDocument):
        validate(document.to_dict())
    else:
        document = ReportDocument.from_dict(document)
    texts = {
        "json": document.to_json(),
        "junit": junit.render(document),
        "markdown": markdown.render(document),
        "html": html.render(document),
    }
    if "sarif" in wanted:
        texts["sarif"] = sarif.render(document)
    folder = Path(report_dir)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {fmt: folder / FILE_NAMES[fmt] for fmt in texts}
    for fmt, text in texts.items():
        paths[fmt].write_text(text, encoding="utf-8")
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        with Path(step_summary).open("a", encoding="utf-8") as summary:
            summary.write(texts["markdown"])
    return paths
