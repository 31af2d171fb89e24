"""mem_capture_passive: learnings under a "Key Learnings" heading, as upstream, and from free
text without one (the seed's error log); at most ``--max-learnings`` of them a call, in one
transaction, at a cost linear in the text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from engram_conformance.reference_impl.mem import passive
from engram_conformance.reference_impl.mem.passive import learnings
from engram_conformance.reference_impl.mem.text import CONTENT_CAP, one_line, redact
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from .inprocess import ok as in_process_ok
from .inprocess import service
from .servers import failed, fresh, mem_stdio, ok

pytestmark = pytest.mark.anyio

SEED_EXAMPLE = """ERROR: Connection pool exhausted after 100 concurrent requests.
           Pool size: 10. Queue timeout: 500ms."""


def counts(answer: str) -> tuple[int, int, int]:
    prefix = "Passive capture complete: "
    assert answer.startswith(prefix), answer
    values = dict(item.split("=") for item in answer.removeprefix(prefix).split())
    return int(values["extracted"]), int(values["saved"]), int(values["duplicates"])


async def test_the_seeds_error_log_yields_a_learning(mem: Client) -> None:
    project = fresh()
    await ok(mem, "mem_session_start", id="session-abc123", project=project)
    answer = await ok(
        mem,
        "mem_capture_passive",
        content=SEED_EXAMPLE,
        session_id="session-abc123",
        project=project,
    )
    assert counts(answer) == (1, 1, 0)
    found = await ok(mem, "mem_search", query="pool exhausted", project=project, type="passive")
    assert "Found 1 memories" in found and "Queue timeout: 500ms" in found
    context = await ok(mem, "mem_context", project=project)
    assert (
        "[passive] **ERROR: Connection pool exhausted after 100 concurrent reques...**" in context
    )


async def test_items_under_a_key_learnings_heading(mem: Client) -> None:
    project = fresh()
    text = (
        "Some output\n\n## Key Learnings:\n"
        "1. Always check the provider's rate limits first\n"
        "2. short\n"
        "3. **Bold** marks and `code` are removed from items\n"
        "## Next\n"
        "- not a learning of the section above"
    )
    answer = await ok(mem, "mem_capture_passive", content=text, project=project, source="tests")
    assert counts(answer) == (2, 2, 0)
    found = await ok(mem, "mem_search", query="removed", project=project)
    assert "Bold marks and code are removed from items" in found


async def test_a_repeated_capture_is_duplicates(mem: Client) -> None:
    project = fresh()
    text = "## Aprendizajes\n- Revisar los límites del proveedor antes del retry"
    assert counts(await ok(mem, "mem_capture_passive", content=text, project=project)) == (1, 1, 0)
    assert counts(await ok(mem, "mem_capture_passive", content=text, project=project)) == (1, 0, 1)
    twice = "## Learnings\n- a learning written twice here\n- A learning  written twice here"
    assert counts(await ok(mem, "mem_capture_passive", content=twice, project=project)) == (2, 1, 1)


async def test_text_of_no_substance_yields_none(mem: Client) -> None:
    answer = await ok(mem, "mem_capture_passive", content="ok", project=fresh())
    assert counts(answer) == (0, 0, 0)


async def test_content_is_required(mem: Client) -> None:
    assert await failed(mem, "mem_capture_passive", content="  ") == "content is required"


async def test_a_session_no_one_started_is_refused(mem: Client) -> None:
    project, session = fresh(), fresh("s")
    text = "ERROR: the disk is full and nothing can be written"
    arguments = {"content": text, "session_id": session, "project": project}
    assert await failed(mem, "mem_capture_passive", **arguments) == f'Session "{session}" not found'
    nothing = await ok(mem, "mem_search", query="disk", project=project)
    assert nothing.startswith("No memories found")


def test_the_last_heading_with_items_wins() -> None:
    text = (
        "## Learnings\n- the first section's only learning\n\n"
        "### Key Learnings\n- the second section's learning here\n\n"
        "## Aprendizajes Clave\n- tiny"
    )
    assert learnings(text) == ["the second section's learning here"]


def test_numbered_items_are_preferred_to_bullets() -> None:
    text = "## Key Learning\n- a bullet that is long enough\n1) a numbered item long enough"
    assert learnings(text) == ["a numbered item long enough"]


def test_free_text_keeps_the_paragraphs_that_report_a_failure() -> None:
    text = (
        "Running 120 tests on three workers\n\n"
        "FAILED test_login: AssertionError expected 200 got 500\n\n"
        "All other tests passed in four seconds\n\n"
        "Warning: the fixture database was not cleaned"
    )
    assert learnings(text) == [
        "FAILED test_login: AssertionError expected 200 got 500",
        "Warning: the fixture database was not cleaned",
    ]


def test_free_text_without_a_failure_keeps_its_first_paragraph() -> None:
    text = "Deployed version 4.2 to staging today\r\n\r\nThe dashboard looks fine"
    assert learnings(text) == ["Deployed version 4.2 to staging today"]


def test_at_most_five_paragraphs() -> None:
    text = "\n\n".join(f"error number {n} occurred in the worker" for n in range(9))
    assert len(learnings(text)) == 5


def test_a_learnings_heading_written_with_a_tab_ends_the_section_before_it() -> None:
    """Sections never overlap (each line is read for one at most: the cost is linear)."""
    text = (
        "##\tLearnings\n- the learning of the first section\n"
        "#\tNext part\n- a bullet of another part, not a learning"
    )
    assert learnings(text) == ["the learning of the first section"]


def test_many_headings_written_with_a_tab_take_linear_time() -> None:
    """Each heading's section used to run to the end of the text: 104 kB took 12 s, this
    would take hours."""
    text = "##\tLearnings\n" * 200_000 + "## Learnings\n- the one learning at the very end"
    assert learnings(text) == ["the one learning at the very end"]
    blanks = "## Key Learnings" + " \t" * 200_000 + ":x\n- not a heading: no section's item"
    [paragraph] = learnings(blanks)
    assert paragraph.startswith("## Key Learnings :x")


def _learnings_as_read_before(text: str) -> list[str]:
    """The extraction before issue 23's second pass: every mark's section read, from the last,
    and every item cleaned; the oracle the faster reading must agree with."""

    def substantial(found: list[str]) -> list[str]:
        cleaned = (redact(one_line(passive._MARKERS.sub("", item))) for item in found)
        return [item for item in cleaned if len(item) >= passive.MIN_CHARS]

    text = text.replace("\r\n", "\n").replace("\r", "\n")
    end = len(text)
    for mark in reversed(list(passive._STRUCTURE.finditer(text))):
        if mark.group("heading") is not None:
            start = mark.end()
            found = passive._NUMBERED.findall(text, start, end) or passive._BULLET.findall(
                text, start, end
            )
            if found and (kept := substantial(found)):
                return kept
        end = mark.start()
    paragraphs = substantial(passive._PARAGRAPH_BREAK.split(text))
    signal = re.compile(passive._SIGNAL.pattern, re.IGNORECASE)
    signalled = [paragraph for paragraph in paragraphs if signal.search(paragraph[:CONTENT_CAP])]
    return signalled[: passive.MAX_PARAGRAPHS] if signalled else paragraphs[:1]


_HEADING_LINES = ["## Learnings", "##\tLearnings", "### Key Learnings:", "## Aprendizajes"]
_ITEM_LINES = ["- short", "* a bullet learning long enough", "1. a numbered learning long enough"]
_ODD_LINES = ["2) tiny", "  - ", "-\t<private>", "- <priv**ate> secret kept out", "- **a**`b`__c__"]
_LONG_LINES = ["- " + "y" * 18, "3.\t" + "*" * 25, "- " + "a" * 10 + "<private>", "x" * 18]
_SPACED_LINES = ["- a b c d e f g h i j", "- a b c d e f g h i jk", "1.  a*b*c`d`e f g h i j k"]
_OTHER_LINES = ["# Part", "##\tx", "", "  ", "ERROR: the pool is exhausted", "</private>"]
_SIGNAL_LINES = ["FATAL: Cannot reach the database", "it Timed\tOut once", "a WARNING, no more"]
_LINES = st.sampled_from(
    [
        *_HEADING_LINES,
        *_ITEM_LINES,
        *_ODD_LINES,
        *_LONG_LINES,
        *_SPACED_LINES,
        *_OTHER_LINES,
        *_SIGNAL_LINES,
    ]
)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(_LINES, max_size=14).map("\n".join))
def test_only_sections_with_item_lines_and_items_long_enough_are_read(text: str) -> None:
    """The extraction reads from the item lines back and cleans no item too short to count
    (issue 23: floods of empty headings or tiny items), and finds what reading every section
    and cleaning every item found."""
    assert learnings(text) == _learnings_as_read_before(text)


def items(count: int, word: str) -> str:
    return "## Key Learnings:\n" + "".join(f"- {word} learning number {n}\n" for n in range(count))


async def test_more_learnings_than_one_capture_saves_are_refused_whole(mem: Client) -> None:
    project, word = fresh(), fresh("w")
    arguments = {"content": items(1001, word), "project": project}
    message = await failed(mem, "mem_capture_passive", **arguments)
    assert message == (
        "the text holds 1001 learnings, more than the 1000 one capture may save: "
        "nothing was saved (capture it in parts)"
    )
    assert (await ok(mem, "mem_search", query=word, project=project)).startswith("No memories")
    answer = await ok(mem, "mem_capture_passive", content=items(1000, word), project=project)
    assert counts(answer) == (1000, 1000, 0)


async def test_the_most_learnings_is_a_serve_option(tmp_path: Path) -> None:
    async with mem_stdio(tmp_path, "--max-learnings", "3") as client:
        word = fresh("w")
        message = await failed(client, "mem_capture_passive", content=items(4, word))
        assert message.startswith("the text holds 4 learnings, more than the 3 ")
        assert counts(await ok(client, "mem_capture_passive", content=items(3, word))) == (3, 3, 0)


def test_a_capture_is_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A capture cut short (here the store fails at its third learning; a kill did it) stores
    nothing, so that its retry counts no learning as a duplicate."""
    text = items(5, "atomic")
    with service(tmp_path) as mem:
        insert = mem.store.insert_observation
        inserted: list[int] = []

        def failing(values: dict[str, object]) -> int:
            if len(inserted) == 2:
                raise OSError("disk full")
            inserted.append(insert(values))
            return inserted[-1]

        monkeypatch.setattr(mem.store, "insert_observation", failing)
        assert mem.call("mem_capture_passive", {"content": text}).is_error
        monkeypatch.undo()
        assert in_process_ok(mem, "mem_search", query="atomic").startswith("No memories")
        assert counts(in_process_ok(mem, "mem_capture_passive", content=text)) == (5, 5, 0)


def test_a_failure_signal_counts_within_what_a_memory_keeps() -> None:
    """A paragraph is a learning for a failure it mentions in the part a memory keeps of it
    (issue 23: the search over a paragraph of a megabyte held the call for 70 ms)."""
    kept = "x " * (CONTENT_CAP // 2)
    assert learnings("a first paragraph long enough\n\n" + kept + "ERROR past the cap") == [
        "a first paragraph long enough"
    ]
    [found] = learnings("a first paragraph long enough\n\n" + kept[:-20] + "ERROR within it")
    assert found.endswith("ERROR within it")
