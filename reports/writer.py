"""Write a run's report folder: report.json, validated first, and the renderings made from it."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from . import html, junit, markdown, sarif
from ._schema import InvalidReport
from .document import ReportDocument, pretty_json, validate

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
#: Format -> its renderer, for the formats rendered from the document.
RENDERERS: dict[str, Callable[[ReportDocument], str]] = {
    "junit": junit.render,
    "markdown": markdown.render,
    "html": html.render,
    "sarif": sarif.render,
}


def write_reports(
    document: ReportDocument | Mapping[str, Any],
    report_dir: Path | str,
    formats: Iterable[str] = (),
) -> dict[str, Path]:
    """Write the four reports of ``document`` into ``report_dir`` (created if missing), and
    those of ``formats``, a choice of ``OPTIONAL_FORMATS`` (ValueError for another).

    ``document`` is a ReportDocument or its JSON data. Nothing is written unless the document
    is valid (InvalidReport otherwise; ``write_reports_as_built`` keeps an invalid one). When
    ``GITHUB_STEP_SUMMARY`` names a file, the Markdown is appended to it, as GitHub Actions
    gathers several steps' summaries in that one file. Returns the path written per format.
    """
    wanted = _wanted(formats)
    if isinstance(document, ReportDocument):
        validate(document.to_dict())
    else:
        document = ReportDocument.from_dict(document)
    texts = {"json": document.to_json()}
    texts.update({fmt: RENDERERS[fmt](document) for fmt in _rendered(wanted)})
    return _write(texts, report_dir)


def write_reports_as_built(
    document: ReportDocument | Mapping[str, Any],
    report_dir: Path | str,
    formats: Iterable[str] = (),
) -> tuple[dict[str, Path], InvalidReport | None]:
    """``write_reports`` for the document of a run that must not be lost (a ReportDocument or
    its JSON data): when it breaks the report schema (a bug of the kit), report.json still
    holds it, as built, and every rendering that can be made of it is written beside it (the
    others are left out).

    Returns the path written per format, and the problem (None when the document is valid).
    Raises OSError when the folder cannot be written, ValueError for an unknown format.
    """
    wanted = _wanted(formats)
    try:
        return write_reports(document, report_dir, wanted), None
    except InvalidReport as problem:
        invalid = problem
    data = document.to_dict() if isinstance(document, ReportDocument) else document
    # a value that is no JSON is written as its repr: the document is kept, whatever it holds
    texts = {"json": pretty_json(data, default=repr)}
    for fmt in _rendered(wanted):
        text = _rendering(fmt, data)
        if text is not None:
            texts[fmt] = text
    return _write(texts, report_dir), invalid


def _wanted(formats: Iterable[str]) -> set[str]:
    wanted = set(formats)
    unknown = sorted(wanted - set(OPTIONAL_FORMATS))
    if unknown:
        raise ValueError(f"no such optional report format: {', '.join(unknown)}")
    return wanted


def _rendered(wanted: set[str]) -> list[str]:
    """The rendered formats to write: the three always written, then those asked for."""
    return [fmt for fmt in RENDERERS if fmt not in OPTIONAL_FORMATS or fmt in wanted]


def _rendering(fmt: str, data: Mapping[str, Any]) -> str | None:
    """The rendering of data that breaks the schema, or None when it cannot be made: such data
    may lack anything a view needs, or hold anything a renderer trips on."""
    try:
        return RENDERERS[fmt](ReportDocument.unchecked(data))
    except Exception:
        return None


def replace_file(path: Path, text: str) -> None:
    """``path`` holds ``text`` whole or is left as it was: written beside it (created as an
    ordinary file is, the umask applied), then renamed over it, which replaces a link planted
    there rather than writing where it points (attack round 6: a report folder others could
    write into let them aim report.html at any file)."""
    beside = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        with os.fdopen(os.open(beside, flags, 0o666), "w", encoding="utf-8") as written:
            written.write(text)
        beside.replace(path)
    except BaseException:
        beside.unlink(missing_ok=True)
        raise


def _write(texts: dict[str, str], report_dir: Path | str) -> dict[str, Path]:
    folder = Path(report_dir)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {fmt: folder / FILE_NAMES[fmt] for fmt in texts}
    for fmt, text in texts.items():
        replace_file(paths[fmt], text)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary and "markdown" in texts:
        with Path(step_summary).open("a", encoding="utf-8") as summary:
            summary.write(texts["markdown"])
    return paths
