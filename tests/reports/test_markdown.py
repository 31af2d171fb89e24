"""Markdown: the summary first, failures before everything else, untrusted text escaped."""

from __future__ import annotations

import copy
import re

from engram_conformance.reports import ReportDocument, markdown
from engram_conformance.reports.causes import GROUPED, causes
from engram_conformance.reports.markdown import DETAILED_LIMIT, code_block, inline
from engram_conformance.reports.sanitize import scrub
from hypothesis import given

from .documents import SETTINGS, documents, small
from .snapshot import assert_snapshot


def test_markdown_of_the_small_document() -> None:
    text = markdown.render(ReportDocument.from_dict(small()))
    assert text.splitlines()[0] == small()["conformance"]["summary"]
    assert text.index("## Failures") < text.index("## Errors") < text.index("## Stale baseline")
    assert text.index("## Stale baseline") < text.index("## Warnings") < text.index("All rules")
    assert_snapshot(text, "small.md")


@SETTINGS
@given(documents())
def test_the_first_line_is_the_summary_and_problems_come_first(data: dict) -> None:
    document = ReportDocument.from_dict(data)
    text = markdown.render(document)
    text.encode("utf-8")
    assert text.split("\n", 1)[0] == scrub(document.conformance.summary)
    found = [cause for verdict in GROUPED for cause in causes(document, verdict)]
    headings = re.findall(r"^### (\w+): ", text, flags=re.MULTILINE)
    assert headings == [cause.verdict.replace("_", " ") for cause in found][:DETAILED_LIMIT]
    for rules in document.problems().values():  # every problem rule is named before the table
        assert all(f"**{rule.id}" in text.split("<details><summary>All rules")[0] for rule in rules)


def test_inline_text_shows_exactly_what_it_says() -> None:
    assert inline("<script>x</script>") == "\\<script\\>x\\</script\\>"
    assert inline("a|b *c* _d_ [e](f) `g` &amp; #h ~i~ \\") == (
        "a\\|b \\*c\\* \\_d\\_ \\[e\\](f) \\`g\\` \\&amp; \\#h \\~i\\~ \\\\"
    )
    assert inline("two\nlines\x00") == "two lines\\\\x00"


def test_code_blocks_fence_longer_than_any_backtick_run_and_truncate() -> None:
    assert code_block("a ```` b") == "`````text\na ```` b\n`````"
    assert code_block("plain", "sh") == "```sh\nplain\n```"
    long = code_block("x" * 5000)
    assert "… (3,000 more characters in report.json)" in long


def test_only_the_first_causes_are_shown_in_full() -> None:
    data = small()
    template = data["rules"][1]
    data["rules"] = []
    for n in range(1, 31):
        rule = copy.deepcopy(template) | {"id": f"ENV-{n:03d}"}
        rule["failures"][0]["observed"] = f"answer {n}"  # a cause each
        data["rules"].append(rule)
    data["counts"] = {"pass": 0, "fail": 30, "warn": 0, "not_applicable": 0, "error": 0}
    text = markdown.render(ReportDocument.from_dict(data))
    assert text.count("\n### fail: ") == DETAILED_LIMIT
    assert text.count("\n- **fail** (ENV-") == 30 - DETAILED_LIMIT
    assert "## Failures (30 rules, 30 causes)" in text


def test_one_cause_read_by_many_rules_is_one_section() -> None:
    data = small()
    template = data["rules"][1]
    data["rules"] = [copy.deepcopy(template) | {"id": f"ENV-{n:03d}"} for n in range(1, 31)]
    data["counts"] = {"pass": 0, "fail": 30, "warn": 0, "not_applicable": 0, "error": 0}
    text = markdown.render(ReportDocument.from_dict(data))
    assert "## Failures (30 rules, 1 cause)" in text and text.count("\n### fail: ") == 1
    assert text.count("Observed:") == 1 and text.count("\n- **ENV-") == 30


def test_the_run_line_names_the_subset_run() -> None:
    data = small()
    data["run"]["only"] = ["HOST-001"]
    text = markdown.render(ReportDocument.from_dict(data))
    assert "quick profile (only HOST-001)," in text
