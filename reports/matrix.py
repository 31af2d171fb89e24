"""Implementations side by side: one row per rule, one column per report (a run of one server),
as a Markdown table and as a self-contained HTML page.

Every report must be of one contract. A rule one run did not have shows as absent (``·``), so
runs of two versions of the kit can still be read together.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .compare import one_contract
from .document import ReportDocument, Verdict
from .html_assets import STYLE
from .sanitize import scrub

#: How a verdict reads in a cell: a word a screen reader says, and a mark the eye finds.
MARKS = {
    Verdict.PASS: "✅ pass",
    Verdict.NOT_APPLICABLE: "⬜ n/a",
    Verdict.WARN: "⚠️ warn",
    Verdict.FAIL: "❌ fail",
    Verdict.ERROR: "💥 error",
}
ABSENT = "·"


def _columns(reports: Sequence[ReportDocument]) -> list[str]:
    """Each run's name: its target, and its server's name and version when they differ."""
    names = []
    for report in reports:
        info = report.target.server_info
        server = f"{info.name} {info.version}" if info else "no server"
        names.append(f"{report.target.name} ({server})")
    return names


def _rows(reports: Sequence[ReportDocument]) -> list[tuple[str, str, list[str]]]:
    """(rule id, level, a cell per report), rules in the order the runs first list them."""
    verdicts = [{rule.id: rule for rule in report.rules} for report in reports]
    order: dict[str, str] = {}
    for report in reports:
        for rule in report.rules:
            order.setdefault(rule.id, rule.level)
    return [
        (rule_id, level, [MARKS[v[rule_id].verdict] if rule_id in v else ABSENT for v in verdicts])
        for rule_id, level in order.items()
    ]


def as_markdown(reports: Sequence[ReportDocument]) -> str:
    """The matrix as a Markdown table, with each run's counts above it."""
    one_contract(reports)
    columns = _columns(reports)
    lines = [f"# {reports[0].spec.contract}: {len(reports)} implementations", ""]
    lines += [
        f"- **{_cell(name)}**: {_cell(r.conformance.summary)}"
        for name, r in zip(columns, reports, strict=True)
    ]
    lines += ["", "| Rule | Level | " + " | ".join(map(_cell, columns)) + " |"]
    lines.append("|---|---|" + "---|" * len(columns))
    lines += [
        f"| {rule} | {level} | " + " | ".join(cells) + " |" for rule, level, cells in _rows(reports)
    ]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return " ".join(scrub(text).split()).replace("|", "\\|")


def as_html(reports: Sequence[ReportDocument]) -> str:
    """The matrix as one HTML page that fetches nothing."""
    one_contract(reports)
    columns = _columns(reports)
    contract = html.escape(reports[0].spec.contract)
    head = "".join(f"<th>{html.escape(scrub(name))}</th>" for name in columns)
    summaries = "".join(
        f"<li><strong>{html.escape(scrub(name))}</strong>: "
        f"{html.escape(scrub(report.conformance.summary))}</li>"
        for name, report in zip(columns, reports, strict=True)
    )
    classes = {mark: verdict.value for verdict, mark in MARKS.items()}
    body = "\n".join(
        f"<tr><td>{html.escape(rule)}</td><td>{level}</td>"
        + "".join(f'<td class="v-{classes.get(cell, "")}">{cell}</td>' for cell in cells)
        + "</tr>"
        for rule, level, cells in _rows(reports)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{contract}: implementations side by side</title><style>{STYLE}</style></head>"
        f"<body><h1>{contract}: {len(reports)} implementations side by side</h1>"
        f"<ul>{summaries}</ul><table><thead><tr><th>Rule</th><th>Level</th>{head}</tr></thead>"
        f"<tbody>\n{body}\n</tbody></table></body></html>\n"
    )
