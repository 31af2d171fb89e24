"""``<private>…</private>`` is stored as ``[REDACTED]``, in every text an argument brings;
contents are capped."""

from __future__ import annotations

import re

import pytest
from engram_conformance.reference_impl.mem.text import CONTENT_CAP, TRUNCATED, redact
from mcp import Client

from .servers import failed, fresh, observation, ok, save

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
    """Beyond title and content: type, a session's folder and summary, a capture's text and
    source."""
    project, secret, session = fresh(), "<private>hunter2</private>", fresh("s")
    await ok(mem, "mem_session_start", id=session, project=project, directory=f"/x/{secret}")
    memory = await save(
        mem,
        title="T",
        content="C",
        type=f"config {secret}",
        topic_key="config/t",
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
    assert fields["heading"] == f"#{memory} [config [REDACTED]] T"


@pytest.mark.parametrize(
    ("tool", "arguments", "name"),
    [
        (
            "mem_save",
            {"title": "T", "content": "C", "topic_key": "config/<private>a</private>"},
            "topic_key",
        ),
        (
            "mem_save",
            {"title": "T", "content": "C", "project": "p-<PRIVATE>x</PRIVATE>"},
            "project",
        ),
        ("mem_save", {"title": "T", "content": "C", "session_id": "s-<private>x"}, "session_id"),
        ("mem_session_start", {"id": "s-<private>x</private>"}, "id"),
        ("mem_session_end", {"id": "s-<private>x</private>"}, "id"),
        ("mem_search", {"query": "q", "project": "<private>p</private>"}, "project"),
        ("mem_update", {"id": 1, "topic_key": "a/<private>b</private>"}, "topic_key"),
        ("mem_update", {"id": 1, "project": "<private>b</private>"}, "project"),
        # spellings that become a tag once the name is folded (attack round 5)
        ("mem_save", {"title": "T", "content": "C", "project": "\uff1cprivate\uff1ex"}, "project"),
        ("mem_save", {"title": "T", "content": "C", "project": "<pri\u200bvate>x"}, "project"),
        ("mem_session_start", {"id": "s-\ufe64private\ufe65x"}, "id"),
        ("mem_save", {"title": "T", "content": "C", "topic_key": "a/\uff1cprivate>"}, "topic_key"),
    ],
)
async def test_a_name_with_a_private_span_is_refused(
    mem: Client, tool: str, arguments: dict[str, object], name: str
) -> None:
    """Issue 23, item 6: redacted, "config/<private>a</private>" and "config/<private>b</private>"
    were one topic key, and the second save overwrote the first's memory."""
    message = await failed(mem, tool, **arguments)
    assert message == (
        f"{name} must not hold a <private> span: names differing only in private text would "
        "name the same thing"
    )


async def test_nested_and_unclosed_spans_are_redacted_whole(mem: Client) -> None:
    project = fresh()
    content = (
        "outer <private>first <private>inner</private> zyxnestedtail</private> kept\n"
        "then <PRIVATE>zyxunclosed to the end\nand zyxnextline"
    )
    memory = await save(mem, title="T <private>zyxopentitle", content=content, project=project)
    shown = await ok(mem, "mem_get_observation", id=memory)
    assert "zyx" not in shown
    assert shown.splitlines()[:2] == [f"#{memory} [manual] T [REDACTED]", "outer [REDACTED] kept"]
    for word in ("zyxnestedtail", "zyxunclosed", "zyxnextline", "zyxopentitle"):
        nothing = await ok(mem, "mem_search", query=word, project=project)
        assert nothing.startswith("No memories found")


async def test_a_cleaned_learning_never_makes_a_private_span(mem: Client) -> None:
    """Markdown markers removed from a learning could join ``<priv**ate>`` into a tag."""
    project = fresh()
    text = "## Key Learnings:\n- the key is <priv**ate>zyxhunter</priv**ate> and rotated weekly"
    await ok(mem, "mem_capture_passive", content=text, project=project)
    found = await ok(mem, "mem_search", query="rotated", project=project)
    assert "the key is [REDACTED] and rotated weekly" in found and "zyx" not in found


async def test_a_long_content_is_capped(mem: Client) -> None:
    memory = await save(mem, title="Long", content="x" * (CONTENT_CAP + 10), project=fresh())
    content = (await ok(mem, "mem_get_observation", id=memory)).splitlines()[1]
    assert content == "x" * CONTENT_CAP + TRUNCATED


def test_redaction_fails_closed() -> None:
    assert redact("a <private>b") == "a [REDACTED]"
    assert redact("<private>a</private> b <private>c</private>") == "[REDACTED] b [REDACTED]"
    assert redact("x <private>a <private>b</private> c</private> d") == "x [REDACTED] d"
    assert redact("x <private>a <private>b</private> c") == "x [REDACTED]"
    assert (
        redact("a </private> b <private>c</private></private>")
        == "a </private> b [REDACTED]</private>"
    )
    hostile = "<private>" * 200_000  # linear: a non-greedy pattern would take minutes
    assert redact(hostile) == "[REDACTED]"
    assert redact("</private>" * 200_000 + "<private>x") == "</private>" * 200_000 + "[REDACTED]"


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("a <private >b</private> c", "a [REDACTED] c"),
        ("a < PRIVATE>b</Private > c", "a [REDACTED] c"),
        ('a <private reason="key">b</private> c', "a [REDACTED] c"),
        ("a <private\n>b< / private> c", "a [REDACTED] c"),
        ("a <private >b", "a [REDACTED]"),  # never closed: hidden to the end
        ("a <privateer>b</privateer> c", "a <privateer>b</privateer> c"),  # another tag
    ],
)
def test_every_spelling_of_the_tag_is_read_as_one(text: str, stored: str) -> None:
    """Issue 23, item 6: ``<private >`` and the like were stored in clear."""
    assert redact(text) == stored


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("a <pri\u200bvate>b</pri\u200bvate> c", "a [REDACTED] c"),  # a zero width space
        ("a <pri\u00advate>b</private> c", "a [REDACTED] c"),  # a soft hyphen
        ("a \uff1cprivate\uff1eb\uff1c/private\uff1e c", "a [REDACTED] c"),  # fullwidth
        (
            "a \uff1c\uff50\uff52\uff49\uff56\uff41\uff54\uff45\uff1eb",
            "a [REDACTED]",
        ),  # never closed: hidden to the end
        ("\u65e5 <private>b</pri\u2060vate> \u672c", "\u65e5 [REDACTED] \u672c"),
        ("\u65e5 <private>b</private> \u672c", "\u65e5 [REDACTED] \u672c"),
        ("\u65e5\u200b <privateer>b", "\u65e5\u200b <privateer>b"),  # another tag
        ("\uff21 <private>b</private> \u200b", "\uff21 [REDACTED] \u200b"),  # kept as written
    ],
)
def test_a_tag_a_reader_cannot_tell_from_one_is_one(text: str, stored: str) -> None:
    """Attack round 6: tags with a zero width space or a soft hyphen inside, or in fullwidth
    brackets, were stored in clear, though names with them were refused. Such a text is kept
    as read loosely (its invisible characters dropped, its compatibility forms folded)."""
    assert redact(text) == stored


def test_spelled_tags_cost_linear_time() -> None:
    hostile = "< private " * 100_000 + "<private\t" * 100_000
    assert redact(hostile) == hostile.strip()  # no bracket closes them: no tag, read once
    # attack round 5: blank runs on both sides of "/" were split every way (17 s for 40,000)
    blanks = "<" + " " * 200_000 + "/" + " " * 200_000 + "privatex"
    assert redact(blanks) == blanks.strip()
