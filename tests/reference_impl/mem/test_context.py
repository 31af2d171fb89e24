"""mem_context's byte budget: ``max_bytes`` (16 KiB when absent or not positive, 64 KiB at
most) bounds the UTF-8 of the answer, which a cut ends at a line break with ``[truncated]``."""

from __future__ import annotations

import pytest
from engram_conformance.reference_impl.mem.text import within_bytes
from mcp import Client

from .servers import fresh, ok, save

pytestmark = pytest.mark.anyio

MARKER = "\n[truncated]"


@pytest.fixture(scope="module")
async def crowded(mem: Client) -> str:
    """A project whose context is about 90 KB: a long summary, then twenty memories."""
    project = fresh()
    await ok(mem, "mem_session_summary", content="Goal: ñandú " * 4000, project=project)
    for number in range(20):
        await save(mem, title=f"Memory {number}", content="é" * 400, project=project)
    return project


@pytest.mark.parametrize(
    ("max_bytes", "budget"),
    [(None, 16384), (0, 16384), (-5, 16384), (3000, 3000), (10**6, 65536)],
)
async def test_the_budget(mem: Client, crowded: str, max_bytes: int | None, budget: int) -> None:
    arguments = {} if max_bytes is None else {"max_bytes": max_bytes}
    context = await ok(mem, "mem_context", project=crowded, **arguments)
    assert budget - 500 < len(context.encode("utf-8")) <= budget
    assert context.startswith("## Memory from Previous Sessions") and context.endswith(MARKER)
    assert "### Latest Session Summary\n**Session summary: " in context


async def test_a_context_within_the_budget_is_whole(mem: Client) -> None:
    project = fresh()
    await save(mem, title="Only one", content="short", project=project)
    context = await ok(mem, "mem_context", project=project, max_bytes=5000)
    assert "Memory stats:" in context and not context.endswith(MARKER)


def test_a_cut_ends_at_a_line_break_or_a_character() -> None:
    assert within_bytes("abc\ndef\nghi", 11, "+") == "abc\ndef\nghi"
    assert within_bytes("abc\ndef\nghi", 10, "+") == "abc\ndef+"
    assert within_bytes("abc\ndef\nghi", 10, "+", free=range(4, 7)) == "abc\ndef+"
    assert within_bytes("abc\ndef\nghi", 7, "+", free=range(4, 7)) == "abc\nde+"  # in the text
    assert within_bytes("ééééé", 7, "+") == "ééé+"  # no line break: whole characters
    assert within_bytes("ééééé", 1, "++") == ""  # no room even for the marker
