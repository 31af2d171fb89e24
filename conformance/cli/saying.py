"""What ``engram-conformance run`` says on the terminal once the run is over, as pytest does: the
summary line, a short summary naming every rule that needs a look with its one-line reason
(warnings too), and a final line of counts and time, coloured on a terminal."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import click
from engram_conformance.reports import ReportDocument, RuleRecord, Verdict
from engram_conformance.reports.text import (
    era_findings,
    era_verdicts,
    protocol_line,
    shard_line,
    terminal_line,
)

#: rules the short summary lists at most; the reports hold all
SHOWN = 40
#: what the short summary lists, by default and with ``-v``
_NEEDS_A_LOOK = (Verdict.FAIL, Verdict.ERROR, Verdict.WARN)
_VERBOSE = (*_NEEDS_A_LOOK, Verdict.NOT_APPLICABLE)
_COLOURS = {Verdict.FAIL: "red", Verdict.ERROR: "magenta", Verdict.WARN: "yellow"}


@dataclass(frozen=True)
class Saying:
    quiet: bool = False
    verbose: bool = False
    #: None: colours on a terminal only (click decides); False: never
    color: bool | None = None

    def tell(self, document: ReportDocument, report_dir: Path) -> None:
        if not self.quiet:
            click.echo(document.conformance.summary)
            for line in (protocol_line(document), shard_line(document)):
                if line is not None:
                    click.echo(line)
            self._era_findings(document)
            self._short_summary(document, report_dir)
        self._final_line(document)

    def _era_findings(self, document: ReportDocument) -> None:
        """The rules whose verdict differs between the MCP eras (``--era both``), first."""
        found = era_findings(document)
        if not found:
            return
        click.echo("era findings (the server keeps these rules in one era, not the other):")
        for rule in found:
            line = f"{terminal_line(rule)} [{era_verdicts(rule)}]"
            click.echo(self._styled(line, rule), color=self.color)

    def _short_summary(self, document: ReportDocument, report_dir: Path) -> None:
        shown = _VERBOSE if self.verbose else _NEEDS_A_LOOK
        listed = [rule for rule in document.rules if rule.verdict in shown or rule.baseline]
        if not listed:
            return
        click.echo("short summary:")
        for rule in listed[:SHOWN]:
            click.echo(self._styled(terminal_line(rule), rule), color=self.color)
        if len(listed) > SHOWN:
            click.echo(f"  ... and {len(listed) - SHOWN} more in {report_dir / 'summary.md'}")

    def _styled(self, line: str, rule: RuleRecord) -> str:
        colour = _COLOURS.get(rule.verdict)
        return click.style(line, fg=colour) if colour else line

    def _final_line(self, document: ReportDocument) -> None:
        counts = ", ".join(
            f"{count} {verdict.label}" for verdict, count in document.counts.items() if count
        )
        line = f"{counts or 'no rule'} in {document.run.duration_s:.1f} s"
        line += f" (exit code {document.exit_code})"
        if document.exit_code:
            colour = "red"
        elif document.counts[Verdict.WARN] or document.counts[Verdict.ERROR]:
            colour = "yellow"
        else:
            colour = "green"
        framed = f"{'=' * 10} {line} {'=' * 10}"
        click.echo(click.style(framed, fg=colour, bold=True), color=self.color)
