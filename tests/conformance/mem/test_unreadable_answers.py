"""What the mem reader lets pass and what it refuses: where it finds an answer's text, the
variations versions add, Go-quoted strings, and ``Unreadable`` for every answer it cannot
understand (never a half-guessed fact)."""

from __future__ import annotations

import json

import pytest
from engram_conformance.conformance.mem import answers
from engram_conformance.conformance.mem.answer_text import Answer, Unreadable, go_quoted
from engram_conformance.conformance.mem.facts import Saved, ToolFailure
from engram_conformance.conformance.observation import Observation
from mcp_types import CallToolResult, ImageContent, TextContent

SAVED = 'Memory saved: "T" (manual)'
HIT = "[1] #5 (bugfix) — T\n    body\n    2026-01-01 00:00:00 | project: p | scope: project\n"
OBSERVATION = (
    "#5 [bugfix] T\nbody\nSession: s\nScope: project\nDuplicates: 1\nRevisions: 1\nCreated: c"
)


def envelope(result: str, **extra: object) -> str:
    return json.dumps(
        {"project": "p", "project_source": "dir_basename", "project_path": "/p", "result": result}
        | extra
    )


def unreadable(tool: str, text: str) -> Unreadable:
    with pytest.raises(Unreadable) as raised:
        answers.read(tool, Answer(text))
    assert (raised.value.tool, raised.value.text) == (tool, text)
    return raised.value


# where the text comes from --------------------------------------------------------------------
def test_a_call_tool_result_is_read_from_its_one_text_block() -> None:
    result = CallToolResult(
        content=[TextContent(type="text", text="Memory #3 soft-deleted")], is_error=False
    )
    assert answers.read("mem_delete", result).id == 3
    failed = CallToolResult(
        content=[TextContent(type="text", text="id is required")], is_error=True
    )
    assert answers.read("mem_delete", failed) == ToolFailure(message="id is required")
    image = ImageContent(type="image", data="AA==", mime_type="image/png")
    with_image = CallToolResult(content=[image, *result.content])
    assert answers.mem_delete(with_image).id == 3


def test_an_answer_without_text_is_unreadable() -> None:
    with pytest.raises(Unreadable, match="carries no text"):
        answers.read("mem_delete", CallToolResult(content=[]))


def test_several_text_blocks_are_read_together_and_one_of_json_as_data() -> None:
    """Every block is read (a token in the second is shown), and a block that is a JSON
    object beside a human line is the answer's data."""
    blocks = ["Saved.", json.dumps({"id": "obs_9", "title": "T"})]
    result = CallToolResult(content=[TextContent(type="text", text=text) for text in blocks])
    saved = answers.read("mem_save", result)
    assert saved.id == "obs_9" and "obs_9" in saved.shown


def test_the_harness_observation_reads_and_one_without_text_is_unreadable() -> None:
    def observed(**answer: object) -> Observation:
        return Observation(0, "tools/call", "mem_delete", {"id": 3}, None, None, **answer)

    assert (
        answers.read("mem_delete", observed(outcome="result", text="Memory #3 soft-deleted")).id
        == 3
    )
    with pytest.raises(Unreadable, match="no text"):
        answers.read("mem_delete", observed(outcome="protocol_error", error_code=-32602))


def test_the_per_tool_readers_are_typed_entry_points() -> None:
    assert isinstance(answers.mem_save(Answer(SAVED)), Saved)
    assert isinstance(answers.mem_save(Answer("boom", is_error=True)), ToolFailure)
    assert answers.READERS["mem_unpin"].tool == "mem_unpin"


def test_a_success_of_a_tool_no_reader_knows_is_unreadable() -> None:
    assert "no reader" in unreadable("mem_nonexistent", "done").why


def test_text_that_begins_like_json_must_be_json() -> None:
    assert "does not parse" in unreadable("mem_save", '{"result": "Memory saved').why
    assert 'no "result" text' in str(unreadable("mem_stats", " {}"))


# what versions add is let pass ----------------------------------------------------------------
def test_extra_json_keys_and_an_envelope_warning_are_let_pass() -> None:
    text = envelope("Memory #3 soft-deleted", warning="moved", future={"x": 1})
    deleted = answers.read("mem_delete", Answer(text))
    assert (deleted.id, deleted.envelope.warning) == (3, "moved")


def test_footer_and_nudge_lines_after_the_hits_are_let_pass() -> None:
    nudge = (
        "\n---\nResults above are previews.\n\n⚠️ No mem_save calls for this project in 30 minutes."
    )
    found = answers.read("mem_search", Answer(f"Found 1 memories:\n\n{HIT}{nudge}"))
    assert found.ids == [5]
    assert found.hits[0].annotations == ()


def test_unknown_indented_lines_under_a_hit_are_not_annotations() -> None:
    found = answers.read("mem_search", Answer(f"Found 1 memories:\n\n{HIT}    state: odd\n"))
    assert found.hits[0].annotations == ()


def test_an_unknown_context_section_and_a_later_metadata_line_are_let_pass() -> None:
    text = "## Memory from Previous Sessions\n\n### Something New\nwhatever\n\n---\n" + (
        "Memory stats: 1 sessions, 0 observations across projects: none"
    )
    context = answers.read("mem_context", Answer(text))
    assert (context.observations, context.totals.sessions) == ((), 1)
    observation = answers.read("mem_get_observation", Answer(OBSERVATION + "\nPinned: yes"))
    assert (observation.content, observation.created_at) == ("body", "c")


def test_a_context_cut_before_its_footer_has_no_totals() -> None:
    text = "## Memory from Previous Sessions\n\n### Recent Observations\n- [t] **A**: b\n"
    assert answers.read("mem_context", Answer(text)).totals is None


# Go-quoted strings ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("quoted", "value"),
    [
        ('"plain"', "plain"),
        ('"a\\"b\\\\c"', 'a"b\\c'),
        ('"\\a\\b\\f\\n\\r\\t\\v"', "\a\b\f\n\r\t\v"),
        ('"\\x00\\x7f"', "\x00\x7f"),
        ('"bad byte \\xff"', "bad byte \ufffd"),
        ('"\\u00e9\\U0001F600"', "é😀"),
        ('"\\ud83d\\ude00"', "😀"),
        ('"ünïcode and tabs\t"', "ünïcode and tabs\t"),
    ],
)
def test_go_quoted_strings_read_as_go_wrote_them(quoted: str, value: str) -> None:
    assert go_quoted(quoted + " rest") == (value, len(quoted))


@pytest.mark.parametrize(
    "quoted", ['"open', "unquoted", '"a\nb"', '"\\q"', '"\\x4"', '"\\ud83d"', '"\\ude00"']
)
def test_malformed_go_quoted_strings_are_none(quoted: str) -> None:
    assert go_quoted(quoted) is None


# what the reader refuses ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Saved it!", "does not begin with"),
        ('Memory saved: "T manual', "not a well-formed quoted string"),
        ('Memory saved: "T" manual', "no '(<type>)'"),
        (f"{SAVED}\nID: seven", "not a whole number"),
        (f"{SAVED}\nID: 3\nID: 4", "two different ID lines"),
        (f"{SAVED}\nSuggested topic_key: ", "does not name one topic key"),
        (envelope(SAVED, id="1"), "'id' is '1', not an integer"),
        (envelope(SAVED, id=True), "not an integer"),
        (envelope(SAVED, id=1.5), "not an integer"),
        (envelope(f"{SAVED}\nID: 4", id=3), "the text says ID 4 and the JSON id 3"),
        (envelope(SAVED, judgment_required="yes"), "not a boolean"),
        (envelope(f"{SAVED}\nCONFLICT REVIEW PENDING — 2 candidate(s)", candidates=[]), "2 cand"),
        (envelope(SAVED, candidates=[{"id": 1}]), "candidates[0]: the JSON has no 'sync_id'"),
        (envelope(SAVED, candidates=["x"]), "candidates[0] is 'x', not an object"),
        (envelope(SAVED, project=7), "'project' is 7, not a string"),
        (json.dumps({"id": 3.5}), 'no "result" text'),
        (json.dumps({"id": 3.5}), "as JSON: as Saved, id.int: Input should be a valid integer"),
    ],
)
def test_unreadable_saves(text: str, why: str) -> None:
    assert why in unreadable("mem_save", text).why


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("Here you go", "neither 'Found N memories:'"),
        ("Found 2 memories:\n\n" + HIT, "no '[2] #<id>"),
        ("Found 1 memories:\n\n[2] #5 (bugfix) — T\n", "no '[1] #<id>"),
        ("Found 1 memories:\n\n[1] #5 (bugfix) — T\nbody\n", "no indented content preview"),
        ("Found 1 memories:\n\n[1] #5 (bugfix) — T\n    body\n", "no '<created> | scope"),
        ("Found x memories:", "neither"),
        (envelope("Found 1 memories:\n\n" + HIT, results=[]), "1 memories announced, 0 in"),
        (
            envelope(
                "Found 1 memories:\n\n" + HIT, results=[{"id": 5, "type": "bugfix", "title": "U"}]
            ),
            "results[0] is not hit 1 of the text",
        ),
        (envelope("Found 1 memories:\n\n" + HIT, results=[{"id": "5"}]), "results[0]: 'id' is"),
        (envelope('No memories found for: "q"', results=[{"id": 1}]), "found no memories lists"),
        ('No memories found for: "q" and more', "found no memories lists"),
    ],
)
def test_unreadable_searches(text: str, why: str) -> None:
    assert why in unreadable("mem_search", text).why


@pytest.mark.parametrize(
    ("tool", "text", "why"),
    [
        ("mem_get_observation", "Memory 5\nbody", "is not '#<id> [<type>] <title>'"),
        ("mem_get_observation", OBSERVATION.replace("Duplicates: 1\n", ""), "no 'Duplicates:'"),
        ("mem_get_observation", OBSERVATION.replace("Duplicates: 1", "Duplicates: two"), "whole"),
        ("mem_get_observation", OBSERVATION.replace("Scope: project\n", ""), "no 'Scope:'"),
        ("mem_get_observation", OBSERVATION + "\nnot metadata", "no 'Created:'"),
        ("mem_update", 'Memory updated: 5 "T" (x, scope=p)', "does not begin with"),
        ("mem_update", 'Memory updated: #5 "T" (x)', "no '(<type>, scope=<scope>)'"),
        ("mem_delete", "Memory #5 deleted", "soft-deleted|permanently deleted"),
        ("mem_delete", "Memory #-5 soft-deleted", "soft-deleted|permanently deleted"),
        ("mem_suggest_topic_key", "Try architecture/x", "neither"),
        ("mem_context", "# Context\n", "is not '## Memory from Previous Sessions'"),
        (
            "mem_context",
            "## Memory from Previous Sessions\n\n### Recent Observations\nloose line\n",
            "does not begin an item",
        ),
        (
            "mem_context",
            "## Memory from Previous Sessions\n\n### Recent Sessions\n- **p** (t) [2 sessions]\n",
            "is not an item of that section",
        ),
        ("mem_timeline", "Session: p (t)\nno total line\n>>> #1 [t] x <<<", "header is not whole"),
        ("mem_timeline", "#1 [t] x\n    body\n    created", "no '>>> #<id>"),
        ("mem_timeline", ">>> #1 [t] x <<<\n    body only\n", "no indented content and creation"),
        ("mem_timeline", ">>> #1 [t] x <<<\n    b\n    c\n\n─── After ───\n#2 t", "begin an item"),
        ("mem_session_start", 'Session "s" started', "does not begin with ' started for"),
        ("mem_session_start", 'Session "s" started for project "p" now', "follows the project"),
        ("mem_session_end", 'Session "s" ended', "completed"),
        ("mem_session_summary", "Summary saved", "does not begin with"),
        ("mem_save_prompt", "Prompt saved: unquoted", "not a well-formed quoted string"),
        ("mem_capture_passive", "Passive capture complete: extracted=two saved=0", "is not"),
        ("mem_stats", "Stats:\n- Sessions: 1", "is not 'Memory System Stats:'"),
        ("mem_stats", "Memory System Stats:\n- Sessions: 1\n- Observations: 2", "no '- Prompts"),
        (
            "mem_stats",
            "Memory System Stats:\n- Sessions: -1\n- Observations: 2\n- Prompts: 0\n- Projects: p",
            "not a whole number",
        ),
        ("mem_current_project", "Current project: p", "plain text where a JSON object"),
        (
            "mem_current_project",
            json.dumps({"project": 7, "project_source": "x"}),
            "project: Input should be a valid string",
        ),
        ("mem_judge", json.dumps({"relation": {"id": "1"}}), "relation: 'id' is '1'"),
        ("mem_judge", json.dumps({"relation": []}), "'relation' is [], not an object"),
        ("mem_judge", "Judged 2 memories (1 pairs):\n#1: outdated", "not 2 verdict lines then 1"),
        (
            "mem_judge",
            "Judged 2 memories (1 pairs):\n#1: old\n#2: outdated\n#1 #2: a — b",
            "#1: old",
        ),
        (
            "mem_judge",
            "Judged 2 memories (1 pairs):\n#1: outdated\n#2: unrelated\n#1 #2",
            "'#1 #2'",
        ),
        ("mem_judge", 'Judgment "rel-1" recorded: #1 supersedes', "' recorded: #1 supersedes'"),
        ("mem_judge", "Judgment rel-1 recorded: #1 supersedes #2", "not a well-formed quoted"),
        ("mem_pin", json.dumps({"id": 1, "sync_id": "s", "pinned": "true"}), "not a boolean"),
        ("mem_review", envelope("Found 2 memories needing review:\n", observations=[]), "but 0"),
        ("mem_merge_projects", 'Merged 1 source(s) into "y":\n  Observations moved: 0', "Sessions"),
        ("mem_list_projects", json.dumps({"projects": [], "count": 1}), "count 1 but 0"),
    ],
)
def test_unreadable_answers_of_the_other_tools(tool: str, text: str, why: str) -> None:
    assert why in unreadable(tool, text).why


def test_unreadable_says_which_tool_and_why() -> None:
    refused = unreadable("mem_delete", "Memory #5 gone")
    assert str(refused).startswith("the answer of mem_delete cannot be read: ")
    assert refused.text == "Memory #5 gone"


def test_a_structured_error_must_say_its_message() -> None:
    text = json.dumps({"error_code": "unknown_project", "available_projects": ["a"]})
    with pytest.raises(Unreadable, match="no 'message'"):
        answers.read("mem_save", Answer(text, is_error=True))
    report = json.dumps({"status": "error", "checks": []})
    assert answers.read("mem_doctor", Answer(report, is_error=True)).message == report
