"""Text a server cuts or derives stays whole characters (SAVE-014).

Upstream's v1.x code of early 2026 cut text by bytes in Go (``s[:n]``): the content cap of a
save, the previews of ``mem_search``, ``mem_context`` and ``mem_timeline``, the title of a
passively captured learning, a topic key, a session's summary in the context. A cut inside a
multi-byte character leaves a broken UTF-8 sequence, which a JSON writer then shows as U+FFFD;
a server that cuts by UTF-16 units (JavaScript's ``slice``) leaves half a surrogate pair.
v2.0.0 lists UTF-8-safe truncation among its changes (``TestTruncateUTF8``).

The check sends, at each such place, texts made of one wide character after a short ASCII head
(``straddling``): a 2-, a 3- and a 4-byte character, each in two alignments one byte apart, so
that wherever a server's cut falls (any byte, any UTF-16 unit, whatever its limit), one text of
each width has a character split by it. Every answer of the check, the writes' and the reads'
(each hit read back with ``mem_get_observation`` where it is listed), must then hold no U+FFFD
and no lone surrogate: the kit sends neither, so either one is the server's cut. A write the
server refuses shows nothing to judge (a refusal of non-ASCII text is SAVE-004's business);
a place whose tool or argument the server does not publish is left out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...observation import Observation as Answer
from ..answer_text import strings_of
from ..facts import MemoryId, SearchResult
from .context import MemContext
from .registry import check
from .steps import (
    SAVE,
    START,
    Project,
    fresh_project,
    project_started,
    readable,
    save_arguments,
    start_arguments,
    what_why,
)

RULE = "SAVE-014"
SEARCH, CONTEXT, GET = "mem_search", "mem_context", "mem_get_observation"
PASSIVE, SUGGEST, END, TIMELINE = (
    "mem_capture_passive",
    "mem_suggest_topic_key",
    "mem_session_end",
    "mem_timeline",
)
#: one character of each UTF-8 width: 2, 3 and 4 bytes (the last also two UTF-16 units)
WIDE = ("é", "記", "😀")
#: the alignments of the wide characters after the head: one of two consecutive ones puts a
#: character across any cut, whatever the width
SHIFTS = (0, 1)
#: wide characters of a content: their UTF-8 bytes (and the 4-byte one's UTF-16 units) pass
#: every upstream content cap (2,000 bytes at v1.7.0, 50,000 at v1.20.0)
CONTENT_CHARS = 30_000
#: wide characters of a shorter text: beyond every upstream cut of a title, preview, key or
#: summary (the longest is a 500-byte preview)
SHORT_CHARS = 300


def straddling(head: str, count: int) -> Iterator[str]:
    """Texts of ``head`` then ``count`` characters of each width in each alignment."""
    for wide in WIDE:
        for shift in SHIFTS:
            yield head + "x" * shift + wide * count


def broken(text: str) -> int | None:
    """The index of the first U+FFFD or lone surrogate in ``text``, if it has one."""
    return next((i for i, char in enumerate(text) if char == "\ufffd" or is_surrogate(char)), None)


def is_surrogate(char: str) -> bool:
    return 0xD800 <= ord(char) <= 0xDFFF


def first_broken(answer: Answer) -> str | None:
    """Where ``answer`` (its text, its structured content, a JSON-RPC error's message) holds a
    broken character, shown with a few characters around it; ``None`` when it holds none."""
    texts = [answer.text or "", answer.error_message or "", *strings_of(answer.structured)]
    for text in texts:
        at = broken(text)
        if at is not None:
            return f"{text[max(0, at - 12) : at + 12]!a} (character {at} of {len(text)})"
    return None


class Shown:
    """The check's calls, each answer judged as it comes (``judged``), and the tools the server
    lists (one tools/list for the whole check)."""

    def __init__(self, ctx: MemContext, listed: dict[str, Any]) -> None:
        self.ctx = ctx
        self.listed = listed

    async def offers(self, tool: str, *arguments: str) -> bool:
        """Whether ``tool`` is listed and its schema publishes each of ``arguments``."""
        if tool not in self.listed:
            return False
        return all([await self.ctx.publishes(tool, argument) for argument in arguments])

    async def judged(self, where: str, tool: str, arguments: dict[str, Any]) -> Answer:
        answer = await self.ctx.call(tool, arguments)
        found = first_broken(answer)
        self.ctx.expect(
            RULE,
            found is None,
            expected=f"{where} ({tool}) in whole characters: no U+FFFD, no lone surrogate",
            observed=found or answer,
        )
        return answer

    async def read_back(self, where: str, query: str, project: Project) -> list[MemoryId]:
        """A search for ``query`` in ``project`` judged, then each memory it found read back
        and judged where ``mem_get_observation`` is listed; the ids found."""
        answer = await self.judged(where, SEARCH, search_of(query, project))
        found = readable(self.ctx, SEARCH, answer)
        ids = found.ids if isinstance(found, SearchResult) else []
        if GET in self.listed:
            for memory in ids:
                await self.judged(f"{where}, read back", GET, {"id": memory})
        return ids


def search_of(query: str, project: Project) -> dict[str, Any]:
    return {"query": query, "project": project.name, "limit": 20}


async def contents(shown: Shown, project: Project, token: str) -> None:
    """Contents beyond every cap, saved; then searched, read back and seen around."""
    for n, text in enumerate(straddling(f"What: {token}, a long content: ", CONTENT_CHARS)):
        arguments = save_arguments(project, f"Cut {token} {n}", text)
        await shown.judged("a content beyond the cap, saved", SAVE, arguments)
    ids = await shown.read_back("the contents' previews", token, project)
    if ids and TIMELINE in shown.listed:
        await shown.judged("the contents in a timeline", TIMELINE, {"observation_id": ids[0]})


async def titles(shown: Shown, project: Project, token: str) -> None:
    """Learnings longer than a title, captured; then searched and read back."""
    if not await shown.offers(PASSIVE, "content"):
        return
    items = [f"{i}. {text}" for i, text in enumerate(straddling(f"{token} learned ", SHORT_CHARS))]
    arguments = {
        "content": "## Key Learnings:\n" + "\n".join(items),
        "project": project.name,
        "session_id": project.session,
    }
    await shown.judged("learnings captured", PASSIVE, arguments)
    await shown.read_back("the learnings' titles", token, project)


async def topic_keys(shown: Shown, project: Project, token: str) -> None:
    """Topic keys longer than a key, given and suggested; the keyed memories read back."""
    if await shown.offers(SAVE, "topic_key"):
        for n, key in enumerate(straddling(f"notes/{token}-", SHORT_CHARS)):
            content = what_why(f"{token} {n}", "a memory with a long topic key")
            arguments = save_arguments(project, f"Keyed {token} {n}", content, topic_key=key)
            await shown.judged("a long topic key, saved", SAVE, arguments)
        await shown.read_back("the topic keys", token, project)
    if await shown.offers(SUGGEST, "title"):
        with_content = await shown.ctx.publishes(SUGGEST, "content")
        for text in straddling(f"Suggest {token} ", SHORT_CHARS):
            arguments = {"title": text} | ({"content": text} if with_content else {})
            await shown.judged("a topic key suggested", SUGGEST, arguments)


async def summaries(shown: Shown, project: Project, token: str) -> None:
    """Sessions of ``project`` ended with summaries longer than the context shows."""
    ctx = shown.ctx
    if not await shown.offers(END, "summary") or START not in shown.listed:
        return
    for text in straddling(f"Goal: {token} ", SHORT_CHARS):
        arguments = await start_arguments(ctx, project.name, ctx.unique("sess"))
        started = await project_started(
            ctx, project.name, arguments, await ctx.call(START, arguments)
        )
        if started.session is not None:
            await shown.judged(
                "a session's summary, ended", END, {"id": started.session, "summary": text}
            )


@check(rules=(RULE,), tools=(SAVE, SEARCH))
async def cut_text_keeps_whole_characters(ctx: MemContext) -> None:
    project = await fresh_project(ctx, "cuts")
    shown = Shown(ctx, await ctx.listed())
    await contents(shown, project, ctx.unique("cutcontent"))
    await titles(shown, project, ctx.unique("cuttitle"))
    await topic_keys(shown, project, ctx.unique("cutkey"))
    await summaries(shown, project, ctx.unique("cutsummary"))
    if CONTEXT in shown.listed:
        await shown.judged("the project's context", CONTEXT, {"project": project.name})
