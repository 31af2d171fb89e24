"""Capture the answers of the mem reference server, the ``reference/`` fixtures of
``test_answers.py``.

Run by hand, not by the tests (they stay pure), from the repository's environment::

    python tests/conformance/mem/capture_reference_answers.py \
        tests/conformance/mem/answers/reference

It starts ``engram-reference serve --contract mem`` over stdio on a fresh state folder, from an
empty folder named ``payments`` (the current project), calls every tool it lists, the seed-era
behaviours where it differs from upstream included, and writes ``<out>/<tool>.json`` as
``{label: {"arguments", "is_error", "text"}}``, as ``capture_upstream_answers.py`` does.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from capture_upstream_answers import LEARNINGS, SUMMARY, Recorder
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

SEED_LOG = "ERROR: Connection pool exhausted after 100 concurrent requests. Pool size: 10."


def saved_id(answer: dict[str, Any]) -> int:
    """The id of a save, from the reference's ``ID: <n>`` line."""
    found = re.search(r"^ID: (\d+)$", answer["text"], re.MULTILINE)
    assert found is not None, answer["text"]
    return int(found.group(1))


async def memories(call: Recorder) -> dict[str, int]:
    """Saves, upserts, dedupe, conflict candidates and their verdicts; the ids the next calls
    need."""
    first = saved_id(
        await call(
            "saved_with_id",
            "mem_save",
            title="Auth middleware design",
            type="architecture",
            content="What: JWT validation in middleware",
        )
    )
    await call(
        "deduped_across_scopes",
        "mem_save",
        title="Auth middleware design",
        type="architecture",
        content="what:  JWT validation in MIDDLEWARE",
        scope="personal",
    )
    arguments = {"type": "architecture", "topic_key": "architecture/auth-middleware-design"}
    topic = saved_id(
        await call(
            "topic_first",
            "mem_save",
            title="Auth middleware: JWT validation strategy",
            content="What: Usamos JWT con RS256",
            **arguments,
        )
    )
    await call(
        "topic_upsert_with_id",
        "mem_save",
        title="Auth middleware: migración a session tokens",
        content="What: Migramos a session tokens HTTP-only",
        **arguments,
    )
    candidates = await call(
        "conflict_candidates",
        "mem_save",
        title="Auth middleware design revisited",
        type="architecture",
        content="What: session tokens instead of JWT",
    )
    newer = saved_id(
        await call(
            "same_head",
            "mem_save",
            title="Auth middleware: cookie sessions",
            type="architecture",
            content="What: cookies replace session tokens",
        )
    )
    personal = saved_id(
        await call(
            "personal",
            "mem_save",
            title="Prefer async await",
            type="learning",
            content="Prefiero async/await sobre Promises encadenadas",
            scope="personal",
        )
    )
    await call("unknown_scope", "mem_save", title="T", content="C", scope="team")
    await call("unknown_session", "mem_save", title="T", content="C", session_id="ghost")
    await call("private", "mem_save", title="Key <private>sk_live_1</private>", content="x y z")
    judgment = re.search(r"Candidate #\d+ (rel-[0-9a-f]+):", candidates["text"])
    assert judgment is not None, candidates["text"]
    await call(
        "recorded",
        "mem_judge",
        judgment_id=judgment.group(1),
        relation="supersedes",
        reason="newer",
        confidence=0.9,
    )
    await call("unknown_judgment", "mem_judge", judgment_id="rel-nope", relation="related")
    await call("bad_relation", "mem_judge", judgment_id=judgment.group(1), relation="hates")
    return {"first": first, "topic": topic, "newer": newer, "personal": personal}


async def reads(call: Recorder, ids: dict[str, int]) -> None:
    await call("updated_and_last_seen", "mem_get_observation", id=ids["topic"])
    await call("deduped", "mem_get_observation", id=ids["first"])
    await call("missing", "mem_get_observation", id=99999)
    await call("hits", "mem_search", query="auth middleware")
    await call("any_word", "mem_search", query="async zebra", match_mode="any")
    await call("bad_match_mode", "mem_search", query="auth", match_mode="some")
    await call("other_project", "mem_search", query="auth", project="elsewhere")
    await call("all_projects", "mem_search", query="auth", all_projects=True)
    await call("no_hit", "mem_search", query="zebra-unicorn")
    await call(
        "suggested", "mem_suggest_topic_key", type="architecture", title="Auth middleware design"
    )
    await call("nothing_to_suggest_from", "mem_suggest_topic_key")
    await call("around", "mem_timeline", observation_id=ids["topic"])
    await call("verdicts", "mem_judge", ids=[ids["newer"], ids["topic"], ids["personal"]])
    await call("too_few", "mem_judge", ids=[ids["topic"]])
    await call("dir_basename", "mem_current_project")
    await call("counts", "mem_stats")


async def sessions(call: Recorder, ids: dict[str, int]) -> None:
    started = await call("generated_id", "mem_session_start")
    session = re.match(r'Session "([^"]+)"', started["text"])
    assert session is not None, started["text"]
    await call("in_session", "mem_save", title="Stripe retry delay", content="3 s minimum")
    await call("saved", "mem_save_prompt", content="How do we retry Stripe calls? " * 5)
    await call("seed_example", "mem_capture_passive", content=SEED_LOG)
    await call("extracted", "mem_capture_passive", content=LEARNINGS)
    await call("empty", "mem_capture_passive", content="")
    await call("saved", "mem_session_summary", content=SUMMARY)
    await call("latest_summary", "mem_context")
    await call("truncated", "mem_context", max_bytes=400)
    await call("cut_in_summary", "mem_context", max_bytes=143)
    await call("personal_scope", "mem_context", scope="personal")
    await call("ended", "mem_session_end", id=session.group(1), summary="Retries fixed")
    await call("unknown", "mem_session_end", id="never-started")
    await call("soft", "mem_delete", id=ids["first"])
    await call("soft_again", "mem_delete", id=ids["first"])
    await call("hard_after_soft", "mem_delete", id=ids["first"], hard=True)
    await call("after_hard", "mem_delete", id=ids["first"], hard_delete=True)
    await call("updated", "mem_update", id=ids["personal"], title="Prefer async/await")
    await call("unknown_scope", "mem_update", id=ids["personal"], scope="team")


async def capture(out: Path) -> None:
    answers: dict[str, dict[str, Any]] = defaultdict(dict)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "payments"
        work.mkdir()
        params = StdioServerParameters(
            command="engram-reference",
            args=["serve", "--contract", "mem", "--state-dir", str(Path(scratch) / "state")],
            cwd=str(work),
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            call = Recorder(session, answers)
            ids = await memories(call)
            await reads(call, ids)
            await sessions(call, ids)
    out.mkdir(parents=True, exist_ok=True)
    for tool, labelled in sorted(answers.items()):
        text = json.dumps(labelled, indent=1, ensure_ascii=False) + "\n"
        (out / f"{tool}.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(capture(Path(sys.argv[1])))
