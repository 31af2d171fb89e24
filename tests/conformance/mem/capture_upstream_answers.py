"""Capture the answers of a real upstream ``engram`` binary, the fixtures of ``test_answers.py``.

Run by hand, not by the tests (they stay pure)::

    python tests/conformance/mem/capture_upstream_answers.py /path/to/engram \
        tests/conformance/mem/answers/v1.20.0

It starts ``engram mcp`` three times over stdio on one fresh data folder: from an empty folder
named ``memread-proj`` (so the detected project is that name; sessions started with another
``directory`` bring in the projects ``fresh-a`` and ``fresh-b``), from a folder holding two git
repositories (an ambiguous project), and with ``--project Forced-Proj``. Every call's answer
lands in ``<out>/<tool>.json`` as ``{label: {"arguments", "is_error", "text"}}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

SAME_CONTENT = "What: JWT validation in middleware. Why: one place. Where: src/auth."
LEARNINGS = (
    "## Key Learnings:\n1. Stripe wants at least three seconds between retries\n"
    "2. Pool exhaustion shows up under concurrent load first"
)
LONGEST_KEPT_ARGUMENT = 500
SUMMARY = (
    "## Goal\nFix retries\n## Discoveries\n3s minimum\n## Accomplished\nDone\n## Files\nsrc/p.ts"
)


def abridged(argument: Any) -> Any:
    """A long string argument as its length and beginning, to keep the fixtures small."""
    if isinstance(argument, str) and len(argument) > LONGEST_KEPT_ARGUMENT:
        return f"<{len(argument)} characters: {argument[:20]}...>"
    return argument


class Recorder:
    """Calls tools on one session and keeps every answer under its label."""

    def __init__(self, session: ClientSession, answers: dict[str, dict[str, Any]]) -> None:
        self.session = session
        self.answers = answers

    async def __call__(self, label: str, tool: str, **arguments: Any) -> dict[str, Any]:
        arguments = {key.rstrip("_"): value for key, value in arguments.items()}
        shown = {key: abridged(value) for key, value in arguments.items()}
        result = await self.session.call_tool(tool, arguments)
        texts = [block.text for block in result.content if block.type == "text"]
        kept = {"arguments": shown, "is_error": bool(result.is_error), "text": texts[0]}
        self.answers.setdefault(tool, {})[label] = kept
        return kept

    @staticmethod
    def extra(answer: dict[str, Any], key: str) -> Any:
        """A key of a JSON-in-text answer (ids and judgment ids the next calls need)."""
        return json.loads(answer["text"]).get(key)


def parameters(binary: str, data: Path, cwd: Path, *flags: str) -> StdioServerParameters:
    env = {"ENGRAM_DATA_DIR": str(data), "HOME": str(data), "PATH": os.environ["PATH"]}
    return StdioServerParameters(
        command=binary, args=["mcp", *flags], env={**env, "ENGRAM_TIMEZONE": "UTC"}, cwd=str(cwd)
    )


async def detected_project(call: Recorder, root: Path) -> None:
    await call("context_empty", "mem_context")
    await call("stats_empty", "mem_stats")
    await call("search_empty_store", "mem_search", query="anything")
    await call("current_project", "mem_current_project")
    await call("started", "mem_session_start", id="sess-one")
    await call("started_project_ignored", "mem_session_start", id="sess-two", project="other")
    first = await call(
        "saved",
        "mem_save",
        title="Auth middleware design",
        type="architecture",
        content=SAME_CONTENT,
    )
    first_id = call.extra(first, "id")
    await call(
        "deduped",
        "mem_save",
        title="Auth middleware design",
        type="architecture",
        content=SAME_CONTENT,
    )
    await call(
        "topic_first",
        "mem_save",
        title="Stripe retry policy",
        type="bugfix",
        content="What: Stripe needs 3s between retries.",
        topic_key="bug/stripe-retry",
    )
    topic = await call(
        "topic_upserted",
        "mem_save",
        title="Stripe retry policy revised",
        type="bugfix",
        content="What: Stripe needs 5s between retries now.",
        topic_key="bug/stripe-retry",
    )
    topic_id = call.extra(topic, "id")
    conflict = await call(
        "conflict_candidates",
        "mem_save",
        title="Auth middleware design revisited",
        type="architecture",
        content="What: session tokens instead of JWT.",
    )
    judgment_id = call.extra(conflict, "judgment_id")
    await call(
        "quoted_title",
        "mem_save",
        title='Say "hi"\tthen\\leave ünïcode',
        content="Quote test content with a tab\tand a backslash \\.",
    )
    await call(
        "personal",
        "mem_save",
        title="Prefer async await",
        type="learning",
        content="I prefer async/await over promise chains.",
        scope="personal",
    )
    await call(
        "long_content",
        "mem_save",
        title="Long content memo",
        type="discovery",
        content="Line one of a long memo.\nLine two follows.\n" + "word " * 120,
    )
    await call("truncated", "mem_save", title="Huge blob", type="config", content="x" * 50010)
    await call("unknown_project", "mem_save", title="Elsewhere", content="c1", project="other-proj")
    await call(
        "detected_project_named", "mem_save", title="Same", content="c2", project="memread-proj"
    )
    await call("project_case", "mem_save", title="Upper", content="c3", project="MemRead-Proj")
    await call("unknown_session", "mem_save", title="Lost", content="c4", session_id="no-such")
    await call("known_session", "mem_save", title="In session", content="c5", session_id="sess-one")
    await call("missing_content", "mem_save", title="Empty")
    await call("blank_title", "mem_save", title="", content="no title here")

    await call("one_hit", "mem_search", query="stripe")
    await call("hits_with_pending_conflicts", "mem_search", query="auth middleware")
    await call("preview", "mem_search", query="memo")
    await call("no_hit", "mem_search", query="zebra-unicorn")
    await call("type_filter_no_hit", "mem_search", query="auth", type="bugfix")
    await call("quotes", "mem_search", query='say "hi"')
    await call("operators", "mem_search", query="auth OR NEAR(x) *")
    await call("bad_match_mode", "mem_search", query="auth", match_mode="some")
    await call("empty_query", "mem_search", query="")
    await call("personal_scope", "mem_search", query="async", scope="personal")
    await call("unknown_project", "mem_search", query="auth", project="nope-project")
    await call("all_projects", "mem_search", query="auth", all_projects=True)

    await call("deduped", "mem_get_observation", id=first_id)
    await call("topic_upserted", "mem_get_observation", id=topic_id)
    await call("missing", "mem_get_observation", id=99999)
    await call("no_id", "mem_get_observation")

    await call("updated", "mem_update", id=first_id, title="Auth middleware design (v2)")
    await call("no_fields", "mem_update", id=first_id)
    await call("missing", "mem_update", id=99999, title="x")
    await call("no_id", "mem_update", title="x")

    await call(
        "suggested", "mem_suggest_topic_key", type="architecture", title="Auth middleware design"
    )
    await call("nothing_to_suggest_from", "mem_suggest_topic_key")

    await call("before_and_after", "mem_timeline", observation_id=topic_id)
    await call("missing", "mem_timeline", observation_id=99999)
    await call("no_id", "mem_timeline")

    await call("saved", "mem_save_prompt", content="How do we retry Stripe calls? " * 5)
    await call("saved", "mem_session_summary", content=SUMMARY)
    await call("blank", "mem_session_summary", content="  ")
    await call("extracted", "mem_capture_passive", content=LEARNINGS)
    await call("duplicate", "mem_capture_passive", content=LEARNINGS.split("\n2.")[0])
    await call("no_heading", "mem_capture_passive", content="ERROR: pool exhausted after 100 calls")
    await call("empty", "mem_capture_passive", content="")
    await call("unknown_session", "mem_capture_passive", content=LEARNINGS, session_id="ghost")

    await call(
        "supersedes",
        "mem_judge",
        judgment_id=judgment_id,
        relation="supersedes",
        reason="newer",
        confidence=0.9,
    )
    await call("unknown_judgment", "mem_judge", judgment_id="rel-nope", relation="related")
    await call("bad_relation", "mem_judge", judgment_id=judgment_id, relation="hates")
    await call("no_judgment_id", "mem_judge")
    await call("judged_annotations", "mem_search", query="auth middleware")

    await call(
        "related",
        "mem_compare",
        memory_id_a=first_id,
        memory_id_b=topic_id,
        relation="related",
        confidence=0.5,
        reasoning="both infra",
    )
    await call("pinned", "mem_pin", id=topic_id)
    await call("with_pinned", "mem_context")
    await call("personal_scope", "mem_context", scope="personal")
    await call("unpinned", "mem_unpin", id=topic_id)
    await call("nothing_to_review", "mem_review", action="list")
    await call("marked_reviewed", "mem_review", action="mark_reviewed", observation_id=first_id)
    await call("bad_action", "mem_review", action="nap")
    await call("report", "mem_doctor")
    await call("counts", "mem_stats")

    await call("ended", "mem_session_end", id="sess-one", summary="Retries fixed")
    await call("unknown_session", "mem_session_end", id="never-started")
    await call("session_summary", "mem_context")
    await call("after_only", "mem_timeline", observation_id=first_id)

    await call("soft", "mem_delete", id=topic_id)
    await call("soft_again", "mem_delete", id=topic_id)
    await call("hard_after_soft", "mem_delete", id=topic_id, hard_delete=True)
    await call("seed_hard_flag", "mem_delete", id=first_id, hard=True)
    await call("hard", "mem_delete", id=call.extra(conflict, "id"), hard_delete=True)
    await call("unknown", "mem_delete", id=99999)
    await call("no_id", "mem_delete")
    await call("merged", "mem_merge_projects", from_="x", to="y")
    await call("missing_arguments", "mem_merge_projects")
    await fresh_projects(call, root)


async def fresh_projects(call: Recorder, root: Path) -> None:
    """New projects on a running server: a session started in another folder (which need not
    exist) names its project, which writes may then use."""
    await call("directory_project", "mem_session_start", id="s-a", directory=str(root / "fresh-a"))
    await call("missing_directory", "mem_session_start", id="s-b", directory="/nowhere/fresh-b")
    await call("session_project", "mem_save", title="A one", content="alpha one", session_id="s-a")
    await call("known_project", "mem_save", title="A two", content="alpha two", project="fresh-a")
    await call(
        "similar_project",
        "mem_save",
        title="B one",
        content="beta",
        session_id="s-b",
        project="fresh-b",
    )
    await call(
        "session_project_mismatch",
        "mem_save",
        title="A3",
        content="a3",
        session_id="s-a",
        project="fresh-b",
    )
    await call(
        "personal_elsewhere",
        "mem_save",
        title="Personal B",
        content="personal pref",
        scope="personal",
        session_id="s-b",
    )
    await call("other_project", "mem_search", query="alpha", project="fresh-a")
    await call("other_project", "mem_context", project="fresh-a")
    await call("other_project_personal", "mem_context", project="fresh-a", scope="personal")
    await call("personal_everywhere", "mem_context", scope="personal")


async def ambiguous_project(call: Recorder) -> None:
    await call("ambiguous", "mem_current_project")
    await call("ambiguous", "mem_save", title="t", content="c")
    await call("ambiguous", "mem_search", query="t")
    await call("ambiguous", "mem_context")
    await call("ambiguous", "mem_get_observation", id=4)
    await call("ambiguous", "mem_update", id=4, type="manual")
    await call("ambiguous", "mem_session_start", id="sess-three")
    await call("ambiguous", "mem_session_end", id="sess-two")
    await call("ambiguous", "mem_capture_passive", content=LEARNINGS)


async def process_override(call: Recorder) -> None:
    await call("process_override", "mem_current_project")
    await call("process_override", "mem_save", title="Forced", content="forced project")
    await call("process_override_other", "mem_save", title="F2", content="f2", project="other")


async def capture(binary: str, out: Path) -> None:
    answers: dict[str, dict[str, Any]] = defaultdict(dict)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        data, plain, parent = root / "data", root / "memread-proj", root / "parent"
        for folder in (data, plain, parent / "repo-a", parent / "repo-b"):
            folder.mkdir(parents=True)
        for repo in ("repo-a", "repo-b"):
            subprocess.run(["git", "init", "-q", str(parent / repo)], check=True)
        runs = (
            ((plain,), lambda call: detected_project(call, root)),
            ((parent,), ambiguous_project),
            ((plain, "--project", "Forced-Proj"), process_override),
        )
        for (cwd, *flags), scenario in runs:
            params = parameters(binary, data, cwd, *flags)
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await scenario(Recorder(session, answers))
    out.mkdir(parents=True, exist_ok=True)
    for tool, labelled in sorted(answers.items()):
        text = json.dumps(labelled, indent=1, ensure_ascii=False) + "\n"
        (out / f"{tool}.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(capture(sys.argv[1], Path(sys.argv[2])))
