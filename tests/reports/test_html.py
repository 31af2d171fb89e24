"""HTML: one self-contained page, well nested, with every string from the report escaped, whose
first screen holds the failures and errors grouped by cause, with their evidence."""

from __future__ import annotations

import copy
from html.parser import HTMLParser

from engram_conformance.reports import ReportDocument, html
from engram_conformance.reports.html_assets import SCRIPT
from hypothesis import given

from .documents import SETTINGS, documents, small

_VOID = {"meta", "input", "br", "hr", "img", "link"}


class _Page(HTMLParser):
    """Records tags, attributes and text, and checks that every element closes in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag not in _VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open.pop() == tag, f"</{tag}> closes nothing open"

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1] == "script":
            self.scripts.append(data)
        else:
            self.text.append(data)


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    assert page.open == []
    return page


def test_the_page_escapes_a_script_in_an_observed_answer() -> None:
    page = _parse(html.render(ReportDocument.from_dict(small())))
    assert page.scripts == [SCRIPT]
    assert any('"<script>alert(1)</script>"' in text for text in page.text)
    assert any("Full conformance class (all six tools)" in text for text in page.text)


@SETTINGS
@given(documents())
def test_every_page_is_well_nested_self_contained_and_escaped(data: dict) -> None:
    text = html.render(ReportDocument.from_dict(data))
    text.encode("utf-8")
    page = _parse(text)
    assert page.tags.count("script") == 1 and page.scripts == [SCRIPT]  # the filters, only
    assert {"link", "img", "iframe", "object"}.isdisjoint(page.tags)
    assert [v for k, v in page.attributes if k in ("src", "href") and not v.startswith("#")] == []


def _error_rule(rule_id: str, reason: str) -> dict:
    return {
        "id": rule_id,
        "family": rule_id.split("-")[0],
        "level": "must",
        "statement": f"statement of {rule_id}",
        "source": "seed",
        "verdict": "error",
        "checks": ["some_check"],
        "reason": reason,
        "baseline": None,
        "flaky": False,
        "recheck": None,
        "recheck_transcript": None,
        "failures": [],
    }


def _with_errors(*rules: dict) -> ReportDocument:
    data = copy.deepcopy(small())
    data["rules"] += rules
    data["counts"]["error"] += len(rules)
    return ReportDocument.from_dict(data)


def test_one_cause_read_by_many_rules_is_shown_once_with_its_rules() -> None:
    """Issue 26: 36 identical errors read as 36 problems, not one."""
    faulted = "the server faulted: no answer within 10.0 s"
    document = _with_errors(*(_error_rule(f"HANG-{n:03}", faulted) for n in range(1, 37)))
    page = html.render(document)
    assert page.count(f"error: {faulted}</h3>") == 1
    assert "Errors (37 rules, 2 causes)" in page
    assert all(f'href="#rule-HANG-{n:03}"' in page for n in range(1, 37))


def test_the_first_screen_holds_the_failure_its_evidence_and_reproduction() -> None:
    page = html.render(ReportDocument.from_dict(small()))
    failures = page.index('<section id="fails">')
    assert failures < page.index('<section id="errors">') < page.index('<table id="rules">')
    first = page[failures : page.index('<section id="errors">')]
    assert 'href="#rule-ENV-002"' in first and "envelope_has_contract_shape" in first
    assert "→ engram_memory_get {&quot;id&quot;: &quot;mem_x&quot;}" in first  # as sent
    assert "← {&quot;ok&quot;: false, " in first  # as received
    assert "engram-conformance replay " in first
    assert "Check: envelope_has_contract_shape, which took 0.50 s (7 calls)." in first
    assert page.index('<section id="warnings">') > page.index('<section id="errors">')


def test_errors_point_at_the_servers_stderr_when_it_wrote_any() -> None:
    """What a server that faulted wrote last is a click away from its errors."""
    data = copy.deepcopy(small())
    assert any(rule["verdict"] == "error" for rule in data["rules"])
    assert '<a href="#stderr">' not in html.render(ReportDocument.from_dict(data))
    data["target"]["stderr_tail"] = "panic: index out of range"
    page = html.render(ReportDocument.from_dict(data))
    link = page.index('<a href="#stderr">')
    assert page.index('<section id="errors">') < link < page.index('<table id="rules">')
    assert page.index('<section id="stderr">') < page.index("panic: index out of range")


def test_a_clean_run_says_so_first() -> None:
    data = copy.deepcopy(small())
    data["rules"] = [rule for rule in data["rules"] if rule["verdict"] == "pass"]
    data["rules"] = [{**rule, "baseline": None} for rule in data["rules"]]
    data["counts"] = {"pass": len(data["rules"]), "fail": 0, "warn": 0, "not_applicable": 0}
    data["counts"]["error"] = 0
    data["exit_code"] = 0
    page = html.render(ReportDocument.from_dict(data))
    assert "<p>No failures and no errors.</p>" in page
    assert page.index("No failures") < page.index('<table id="rules">')


def test_the_run_says_where_the_time_went() -> None:
    page = html.render(ReportDocument.from_dict(small()))
    assert "9.5 s: 120 calls, 2.2 s waiting (expiries, windows, time-outs)" in page
    assert "<h3>The 2 slowest checks</h3>" in page
    assert page.index("capture_replay_precedes_clock_checks") < page.index(
        "<td>envelope_has_contract_shape</td>"
    )
    assert "<td>0.50 s (7 calls)</td>" in page
