"""``<private>…</private>`` is stored as ``[REDACTED]``, in every text an argument brings;
contents are capped."""

from __future__ import annotations

import re

import pytest
from engram_conformance.reference_impl.mem.text import CONTENT_CAP, TRUNCATED, redact
from mcp import Client

from .servers import fresh, observation, ok, save

pytestmark = pytest.mark.anyio


async def test_private_text_is_redacted_in_title_and_content(mem: Client) -> None:
    project = fresh()
    memory = await save(
        mem,
        title="Set up API with <private>sk-abc123</private>",
        content="Key: <PRIVATE>sk-live-9\nsecond line</Private> rotated",
        project=project,
    )
    fields = await observation(mem, memory)
    assert fields["heading"] == f"#{memory} [manual] Set up API with [REDACTED]"
    assert fields["Key"] == "[REDACTED] rotated"
    everything = " ".join(
        [
            await ok(mem, "mem_search", query="rotated", project=project),
            await ok(mem, "mem_context", project=project),
        ]
    )
    assert "sk-" not in everything and "[REDACTED]" in everything
    assert (await ok(mem, "mem_search", query="abc123", project=project)).startswith("No memories")


async def test_prompts_and_summaries_are_redacted(mem: Client) -> None:
    project = fresh()
    await ok(mem, "mem_save_prompt", content="token <private>hunter2</private>", project=project)
    await ok(mem, "mem_session_summary", content="Goal: <private>pw</private> x", project=project)
    context = await ok(mem, "mem_context", project=project)
    assert "hunter2" not in context and "pw</private>" not in context
    assert context.count("[REDACTED]") == 2


async def test_every_stored_text_is_redacted(mem: Client) -> None:
    """Beyond title and content: type, topic key, a session's id and summary, a capture's text
    and source."""
    project, secret = fresh(), "<private>hunter2</private>"
    session = f"s-{secret}"
    await ok(mem, "mem_session_start", id=session, project=project, directory=f"/x/{secret}")
    memory = await save(
        mem,
        title="T",
        content="C",
        type=f"config {secret}",
        topic_key=f"config/{secret}",
        session_id=session,
        project=project,
    )
    capture = f"ERROR: the pool is exhausted {secret} again"
    await ok(mem, "mem_capture_passive", content=capture, source=secret, project=project)
    await ok(mem, "mem_session_end", id=session, summary=f"done {secret}")
    found = await ok(mem, "mem_search", query="exhausted", project=project)
    captured = int(re.search(r"#(\d+) \(passive\)", found).group(1))  # type: ignore[union-attr]
    seen = [
        found,
        await ok(mem, "mem_get_observation", id=memory),
        await ok(mem, "mem_get_observation", id=captured),
        await ok(mem, "mem_context", project=project),
        await ok(mem, "mem_timeline", observation_id=memory),
        await ok(mem, "mem_suggest_topic_key", title=f"Rotate {secret}"),
    ]
    assert not any("hunter2" in text or "private>" in text for text in seen)
    fields = await observation(mem, memory)
    assert (fields["Session"], fields["Topic"]) == ("s-[REDACTED]", "config/[redacted]")


async def test_a_long_content_is_capped(mem: Client) -> None:
    memory = await save(mem, title="Long", content="x" * (CONTENT_CAP + 10), project=fresh())
    content = (await ok(mem, "mem_get_observation", id=memory)).splitlines()[1]
    assert content == "x" * CONTENT_CAP + TRUNCATED


def test_redaction_of_an_unclosed_tag_and_many_openings() -> None:
    assert redact("a <private>b") == "a <private>b"
    assert redact("<private>a</private> b <private>c</private>") == "[REDACTED] b [REDACTED]"
    hostile = "<private>" * 200_000  # linear: a non-greedy pattern would take minutes
    assert redact(hostile) == hostile
