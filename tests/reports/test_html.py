"""HTML: one self-contained page, well nested, with every string from the report escaped."""

from __future__ import annotations

from html.parser import HTMLParser

from engram_conformance.reports import ReportDocument, html
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

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag not in _VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open.pop() == tag, f"</{tag}> closes nothing open"

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    assert page.open == []
    return page


def test_the_page_escapes_a_script_in_an_observed_answer() -> None:
    page = _parse(html.render(ReportDocument.from_dict(small())))
    assert "script" not in page.tags
    assert any('"<script>alert(1)</script>"' in text for text in page.text)
    assert any("Full conformance class (all six tools)" in text for text in page.text)


@SETTINGS
@given(documents())
def test_every_page_is_well_nested_self_contained_and_escaped(data: dict) -> None:
    text = html.render(ReportDocument.from_dict(data))
    text.encode("utf-8")
    page = _parse(text)
    assert {"script", "link", "img", "iframe", "object"}.isdisjoint(page.tags)
    assert [v for k, v in page.attributes if k in ("src", "href") and not v.startswith("#")] == []
