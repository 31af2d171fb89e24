"""The mem reader turns every tool's answer, in every version's format, into typed facts.

The fixtures (``answers/<version>/<tool>.json``, see its README) are real v1.20.0 answers captured
from upstream's binary, v1.7.0 answers written from the protocol digest, and the reference's
variants. Every one of them reads; the tests below pin the facts each kind of answer gives.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from engram_conformance.conformance.mem import answers
from engram_conformance.conformance.mem.answer_text import Answer
from engram_conformance.conformance.mem.facts import (
    Annotation,
    Candidate,
    Context,
    ContextObservation,
    ContextPrompt,
    ContextSession,
    ContextTotals,
    Deleted,
    Envelope,
    JudgedMemories,
    JudgmentRecorded,
    PairVerdict,
    SearchResult,
    TimelineEntry,
    TimelineFocus,
    TimelineSession,
    ToolFailure,
    Truncation,
)

ANSWERS = Path(__file__).parent / "answers"
VERSIONS = ("v1.7.0", "v1.20.0", "reference")
#: The tools v1.20.0 lists beyond v1.7.0's fourteen.
V1_20_ADDITIONS = {
    "mem_current_project",
    "mem_judge",
    "mem_compare",
    "mem_pin",
    "mem_unpin",
    "mem_review",
    "mem_doctor",
    "mem_merge_projects",
}


@cache
def labelled(version: str, tool: str) -> dict[str, dict]:
    return json.loads((ANSWERS / version / f"{tool}.json").read_text(encoding="utf-8"))


def answer(version: str, tool: str, label: str) -> Answer:
    kept = labelled(version, tool)[label]
    return Answer(kept["text"], kept["is_error"])


def read(version: str, tool: str, label: str):
    return answers.read(tool, answer(version, tool, label))


def pick(fact, names: str) -> tuple:
    """The fields ``names`` (space-separated) of a fact, to compare several at once."""
    return tuple(getattr(fact, name) for name in names.split())


def every_fixture():
    for version in VERSIONS:
        for path in sorted((ANSWERS / version).glob("*.json")):
            for label in labelled(version, path.stem):
                yield pytest.param(version, path.stem, label, id=f"{version}/{path.stem}/{label}")


@pytest.mark.parametrize(("version", "tool", "label"), list(every_fixture()))
def test_every_fixture_answer_reads(version: str, tool: str, label: str) -> None:
    fact = read(version, tool, label)
    assert isinstance(fact, ToolFailure) == answer(version, tool, label).is_error


def test_every_tool_of_every_version_has_fixtures() -> None:
    captured = {path.stem for path in (ANSWERS / "v1.20.0").glob("*.json")}
    assert captured == set(answers.READERS) - {"mem_list_projects"}  # a v2 tool
    v1_7_tools = {path.stem for path in (ANSWERS / "v1.7.0").glob("*.json")}
    assert v1_7_tools == captured - V1_20_ADDITIONS


# mem_save -------------------------------------------------------------------------------------
def test_a_v1_7_save_names_title_type_and_suggestion_but_no_id() -> None:
    saved = read("v1.7.0", "mem_save", "saved")
    assert pick(saved, "title type id") == ("Auth middleware design", "architecture", None)
    assert saved.suggested_topic_key == "architecture/auth-middleware-design"
    assert pick(saved, "envelope judgment_required candidates") == (None, None, ())
    assert read("v1.7.0", "mem_save", "with_topic_key").suggested_topic_key is None


def test_titles_are_unquoted_as_go_quotes_them() -> None:
    assert read("v1.7.0", "mem_save", "quoted_title").title == 'Say "hi"\tthen \\ leave'
    assert read("v1.20.0", "mem_save", "quoted_title").title == 'Say "hi"\tthen\\leave ünïcode'
    assert read("v1.7.0", "mem_save", "missing_title").title == ""


def test_a_v1_20_save_gives_the_id_sync_id_and_envelope() -> None:
    saved = read("v1.20.0", "mem_save", "saved")
    assert pick(saved, "id state judgment_required") == (1, "active", False)
    assert saved.sync_id is not None and saved.sync_id.startswith("obs-")
    assert saved.envelope is not None
    assert (saved.envelope.project, saved.envelope.source) == ("memread-proj", "dir_basename")


def test_dedupe_and_topic_upsert_answer_the_first_memory_id() -> None:
    first, again = read("v1.20.0", "mem_save", "saved"), read("v1.20.0", "mem_save", "deduped")
    assert again.id == first.id
    topic = read("v1.20.0", "mem_save", "topic_first")
    upserted = read("v1.20.0", "mem_save", "topic_upserted")
    assert (upserted.id, upserted.title) == (topic.id, "Stripe retry policy revised")
    assert upserted.suggested_topic_key is None


def test_a_save_with_conflict_candidates_lists_them_typed() -> None:
    saved = read("v1.20.0", "mem_save", "conflict_candidates")
    assert saved.judgment_required is True
    (candidate,) = saved.candidates
    assert isinstance(candidate, Candidate)
    assert pick(candidate, "id title type") == (1, "Auth middleware design", "architecture")
    assert saved.judgment_id == candidate.judgment_id and isinstance(candidate.score, float)
    assert saved.notes == ()  # the CONFLICT REVIEW PENDING line is understood, not a note


def test_a_pending_review_line_in_plain_text_says_judgment_is_required() -> None:
    text = 'Memory saved: "T" (manual)\nCONFLICT REVIEW PENDING — 1 candidate(s); use mem_judge.'
    saved = answers.read("mem_save", Answer(text))
    assert pick(saved, "judgment_required candidates notes") == (True, (), ())


def test_a_cut_content_is_a_truncation_fact() -> None:
    saved = read("v1.20.0", "mem_save", "truncated")
    assert saved.truncation == Truncation(original=50010, kept=50000)


def test_the_explicit_project_sources_show_in_the_envelope() -> None:
    named = read("v1.20.0", "mem_save", "detected_project_named")
    assert named.envelope == Envelope(project="memread-proj", source="explicit_override", path="")
    assert read("v1.20.0", "mem_save", "project_case").envelope.project == "memread-proj"
    assert read("v1.20.0", "mem_save", "known_session").envelope.source == "session"


def test_new_projects_come_through_sessions_and_warnings_are_kept() -> None:
    started = read("v1.20.0", "mem_session_start", "missing_directory")
    assert (started.project, started.envelope.path) == ("fresh-b", "/nowhere/fresh-b")
    assert read("v1.20.0", "mem_save", "session_project").envelope.source == "session"
    (note,) = read("v1.20.0", "mem_save", "similar_project").notes
    assert note.startswith('⚠️ Project "fresh-b" has no memories. Similar project found')
    forced = read("v1.20.0", "mem_save", "process_override").envelope
    assert (forced.project, forced.source) == ("forced-proj", "process_override")
    assert forced.warning == '⚠️ Project name normalized: "Forced-Proj" → "forced-proj"'
    mismatch = read("v1.20.0", "mem_save", "session_project_mismatch")
    assert mismatch.error_code == "session_project_mismatch"


def test_the_reference_save_names_its_id_on_a_line_of_its_own() -> None:
    saved = read("reference", "mem_save", "saved_with_id")
    assert (saved.id, saved.suggested_topic_key) == (1, "architecture/auth-middleware-design")
    assert read("reference", "mem_save", "deduped_across_scopes").id == 1
    assert read("reference", "mem_save", "topic_first").id == 2
    assert read("reference", "mem_save", "topic_upsert_with_id").id == 2


def test_the_reference_lists_its_conflict_candidates_in_text() -> None:
    saved = read("reference", "mem_save", "conflict_candidates")
    assert pick(saved, "id judgment_required notes") == (3, True, ())
    first, second = saved.candidates
    assert pick(first, "id title type sync_id score") == (
        1,
        "Auth middleware design",
        "architecture",
        None,
        None,
    )
    assert second.id == 2 and second.title == "Auth middleware: migración a session tokens"
    assert saved.judgment_id == first.judgment_id and first.judgment_id.startswith("rel-")
    assert read("reference", "mem_save", "saved_with_id").candidates == ()


def test_a_candidate_count_that_disagrees_with_the_lines_is_unreadable() -> None:
    text = (
        'Memory saved: "T" (manual)\nCONFLICT REVIEW PENDING — 2 candidate(s); use mem_judge.\n'
        'Candidate #1 rel-1: "T" (manual)'
    )
    with pytest.raises(answers.Unreadable, match="2 candidates announced, 1 listed"):
        answers.read("mem_save", Answer(text))


def test_unknown_save_lines_are_notes() -> None:
    text = 'Memory saved: "T" (manual)\n⚠️ Project name normalized: "A" → "a"\nID: 3'
    saved = answers.read("mem_save", Answer(text))
    assert (saved.id, saved.notes) == (3, ('⚠️ Project name normalized: "A" → "a"',))


# errors ---------------------------------------------------------------------------------------
def test_a_plain_error_is_its_message() -> None:
    failure = read("v1.20.0", "mem_delete", "unknown")
    assert failure == ToolFailure(message="Failed to delete memory: observation not found")
    no_fields = read("v1.7.0", "mem_update", "no_fields")
    assert no_fields.message == "provide at least one field to update"


def test_a_structured_error_gives_its_code_projects_hint_and_token() -> None:
    failure = read("v1.20.0", "mem_save", "unknown_project")
    assert pick(failure, "error_code available_projects") == ("unknown_project", ("memread-proj",))
    assert failure.message.startswith('Project "other-proj" is not backed by known context')
    assert failure.hint is not None
    ambiguous = read("v1.20.0", "mem_save", "ambiguous")
    assert ambiguous.error_code == "ambiguous_project"
    assert ambiguous.available_projects == ("repo-a", "repo-b")
    assert ambiguous.recovery_token is not None
    assert read("v1.20.0", "mem_save", "unknown_session").available_projects == ()  # null


def test_any_tool_failure_reads_even_without_a_reader() -> None:
    failure = answers.read("mem_new_tool", Answer("nope", is_error=True))
    assert failure == ToolFailure(message="nope")


# one memory -----------------------------------------------------------------------------------
def test_get_observation_reads_every_metadata_line() -> None:
    observation = read("v1.7.0", "mem_get_observation", "every_line")
    assert pick(observation, "id type title") == (12, "architecture", "Auth model")
    assert observation.content == "What: JWT with RS256.\nWhy: one validation point."
    assert pick(observation, "session_id project scope") == (
        "manual-save-payments",
        "payments",
        "project",
    )
    assert pick(observation, "topic_key tool_name") == ("architecture/auth-model", "mcp-passive")
    assert pick(observation, "duplicate_count revision_count") == (1, 3)
    assert observation.created_at == "2026-02-27 18:04:11"


def test_get_observation_optional_lines_are_none_and_content_keeps_lookalike_lines() -> None:
    bare = read("v1.7.0", "mem_get_observation", "no_project_topic_or_tool")
    assert pick(bare, "project topic_key tool_name duplicate_count") == (None, None, None, 2)
    tricky = read("v1.7.0", "mem_get_observation", "content_with_metadata_lines")
    assert tricky.content == "Scope: not this one\nSession: nor this one\n\nDuplicates: 9"
    assert pick(tricky, "session_id scope") == ("manual-save-payments", "project")


def test_counters_of_real_dedupe_and_upsert_are_read_back() -> None:
    deduped = read("v1.20.0", "mem_get_observation", "deduped")
    assert pick(deduped, "duplicate_count revision_count topic_key") == (2, 1, None)
    upserted = read("v1.20.0", "mem_get_observation", "topic_upserted")
    assert pick(upserted, "revision_count topic_key") == (2, "bug/stripe-retry")
    assert read("v1.20.0", "mem_get_observation", "ambiguous").envelope is None  # degraded path


def test_the_reference_observation_adds_updated_and_last_seen() -> None:
    observation = read("reference", "mem_get_observation", "updated_and_last_seen")
    assert observation.updated_at == observation.last_seen_at > observation.created_at
    assert pick(observation, "revision_count topic_key") == (
        2,
        "architecture/auth-middleware-design",
    )
    deduped = read("reference", "mem_get_observation", "deduped")
    assert deduped.last_seen_at > deduped.updated_at == deduped.created_at
    assert pick(deduped, "duplicate_count scope") == (2, "project")


def test_update_delete_and_suggestion() -> None:
    updated = read("v1.7.0", "mem_update", "updated")
    assert pick(updated, "id title type scope") == (
        12,
        "Auth model (v2)",
        "architecture",
        "personal",
    )
    assert read("v1.20.0", "mem_update", "ambiguous").title == 'Say "hi"\tthen\\leave ünïcode'
    assert read("v1.7.0", "mem_delete", "soft") == Deleted(id=12, hard=False)
    assert read("v1.7.0", "mem_delete", "hard") == Deleted(id=12, hard=True)
    assert read("v1.20.0", "mem_delete", "seed_hard_flag").hard is False  # `hard` is not read
    assert read("v1.20.0", "mem_delete", "hard").hard is True
    suggested = read("v1.20.0", "mem_suggest_topic_key", "suggested")
    assert suggested.topic_key == "architecture/auth-middleware-design"
    bare = read("reference", "mem_suggest_topic_key", "suggested")  # the seed's answer
    assert bare.topic_key == "architecture/auth-middleware-design"


def test_the_references_seed_era_deletes() -> None:
    assert read("reference", "mem_delete", "soft") == Deleted(id=1, hard=False)
    assert isinstance(read("reference", "mem_delete", "soft_again"), ToolFailure)
    assert read("reference", "mem_delete", "hard_after_soft") == Deleted(id=1, hard=True)
    assert isinstance(read("reference", "mem_delete", "after_hard"), ToolFailure)


@pytest.mark.parametrize("text", ["architecture/auth-middleware-design", '"bug/stripe-retry"'])
def test_the_seeds_bare_topic_key_answer_reads(text: str) -> None:
    assert answers.read("mem_suggest_topic_key", Answer(text)).topic_key == text.strip('"')


# search ---------------------------------------------------------------------------------------
def test_v1_7_hits_read_from_text() -> None:
    found = read("v1.7.0", "mem_search", "two_hits")
    assert found.ids == [7, 9] and not found.none_found
    first, second = found.hits
    assert pick(first, "type title project scope") == (
        "bugfix",
        "Stripe retry delay",
        "payments",
        "project",
    )
    assert first.preview == "What: Stripe needs 3s between retries."
    assert first.created_at == "2026-02-27 18:04:11"
    assert pick(second, "project scope sync_id pinned") == (None, "personal", None, None)


def test_a_multi_line_preview_stays_whole() -> None:
    (hit,) = read("v1.7.0", "mem_search", "cut_preview").hits
    assert hit.preview.startswith("What: the pool ran dry.\nWhy: 100 concurrent")
    assert hit.preview.endswith("...") and hit.scope == "project"
    (real,) = read("v1.20.0", "mem_search", "preview").hits
    assert real.preview.startswith("Line one of a long memo.\nLine two follows.\nword")
    assert real.preview.endswith("wo...")  # the " [preview]" marker is off


def test_v1_20_hits_take_their_fields_from_results() -> None:
    (hit,) = read("v1.20.0", "mem_search", "one_hit").hits
    assert pick(hit, "id type title") == (2, "bugfix", "Stripe retry policy revised")
    assert pick(hit, "scope project state pinned") == ("project", "memread-proj", "active", False)
    assert hit.sync_id.startswith("obs-")
    quoted = read("v1.20.0", "mem_search", "quotes").hits[0]
    assert quoted.title == 'Say "hi"\tthen\\leave ünïcode'


def test_relation_annotations_are_typed() -> None:
    newer, older = read("v1.20.0", "mem_search", "judged_annotations").hits
    assert newer.annotations[0] == Annotation(
        kind="supersedes", other_id=older.id, other_title="Auth middleware design (v2)"
    )
    assert older.annotations[0] == Annotation(
        kind="superseded_by", other_id=newer.id, other_title="Auth middleware design revisited"
    )
    contested = [a for a in older.annotations if a.kind == "contested"]
    assert contested and all(a.other_sync_id.startswith("obs-") for a in contested)


def test_no_hit_is_a_fact_not_an_error() -> None:
    for version, label in (("v1.7.0", "no_hit"), ("v1.20.0", "no_hit"), ("v1.20.0", "operators")):
        found = read(version, "mem_search", label)
        assert isinstance(found, SearchResult) and found.none_found and found.hits == ()
    assert read("v1.7.0", "mem_search", "no_hit").query == 'zebra "unicorn"'
    assert read("v1.20.0", "mem_search", "empty_query").message.startswith("Search error:")


# context and timeline -------------------------------------------------------------------------
def test_a_v1_7_context_reads_every_section_and_the_footer() -> None:
    context = read("v1.7.0", "mem_context", "full")
    payments, frontend = context.sessions
    assert payments == ContextSession(
        project="payments",
        started_at="2026-02-27 18:00:00",
        observation_count=2,
        summary="Retries fixed",
    )
    assert pick(frontend, "project observation_count summary") == ("frontend", 0, None)
    assert context.prompts == (
        ContextPrompt(created_at="2026-02-27 18:01:02", content="How do we retry Stripe calls?"),
    )
    (summary,) = context.summaries
    assert summary.title == "Session summary: payments"
    assert summary.content.splitlines()[-1] == "Files: src/payments/stripe-client.ts"
    assert context.observations[1] == ContextObservation(
        type="bugfix", title="Stripe retry delay", content="What: Stripe needs 3s between retries."
    )
    assert context.totals == ContextTotals(
        sessions=2, observations=2, projects=("payments", "frontend")
    )


def test_empty_context_and_no_projects() -> None:
    assert read("v1.7.0", "mem_context", "empty") == Context(empty=True)
    assert read("v1.20.0", "mem_context", "context_empty").empty
    only = read("v1.7.0", "mem_context", "only_a_session")
    assert (only.observations, only.totals.projects) == ((), ())


def test_a_real_context_with_pinned_and_an_untitled_memory() -> None:
    context = read("v1.20.0", "mem_context", "with_pinned")
    assert [o.title for o in context.pinned] == ["Stripe retry policy revised"]
    assert "Stripe retry policy revised" not in [o.title for o in context.observations]
    untitled = ContextObservation(type="manual", title="", content="no title here")
    assert untitled in context.observations
    assert context.totals.projects == ("memread-proj",)
    ended = read("v1.20.0", "mem_context", "session_summary")
    assert "Retries fixed" in [session.summary for session in ended.sessions]
    assert ended.summaries[0].content.startswith("## Goal\nFix retries")
    personal = read("v1.20.0", "mem_context", "personal_scope")
    assert [o.title for o in personal.observations] == ["Prefer async await"]


def test_another_projects_personal_memory_shows_only_in_a_context_without_project() -> None:
    for label in ("other_project", "other_project_personal"):
        titles = [o.title for o in read("v1.20.0", "mem_context", label).observations]
        assert "Personal B" not in titles
    everywhere = read("v1.20.0", "mem_context", "personal_everywhere")
    assert "Personal B" in [o.title for o in everywhere.observations]


def test_the_reference_context_has_the_latest_summary_in_full() -> None:
    context = read("reference", "mem_context", "latest_summary")
    assert context.latest_summary.title == "Session summary: payments"
    assert context.latest_summary.content.splitlines()[:2] == ["## Goal", "Fix retries"]
    assert [s.observation_count for s in context.sessions] == [5, 6]
    assert "Prefer async await" in [o.title for o in context.observations]
    assert not context.truncated and context.totals is not None


def test_the_reference_context_cut_to_its_budget_says_so() -> None:
    context = read("reference", "mem_context", "truncated")
    assert context.truncated and context.totals is None
    assert context.latest_summary is not None and len(context.sessions) == 2
    assert context.prompts == ()  # the section was cut after its heading
    cut = read("reference", "mem_context", "cut_in_summary")  # inside the summary's text
    whole = read("reference", "mem_context", "latest_summary").latest_summary.content
    assert cut.truncated and cut.latest_summary.content.startswith("## Goal\nF")
    assert whole.startswith(cut.latest_summary.content) and cut.latest_summary.content != whole


def test_a_timeline_reads_session_neighbours_and_focus() -> None:
    timeline = read("v1.7.0", "mem_timeline", "with_session")
    assert timeline.session == TimelineSession(
        project="payments",
        started_at="2026-02-27 18:00:00",
        total_observations=3,
        summary="Retries fixed",
    )
    assert timeline.before == (
        TimelineEntry(id=6, type="decision", title="Use Stripe", preview="We chose Stripe."),
    )
    assert timeline.focus == TimelineFocus(
        id=7,
        type="bugfix",
        title="Stripe retry delay",
        content="What: Stripe needs 3s.\nWhy: 429s in production.",
        created_at="2026-02-27 18:04:11",
    )
    assert [entry.id for entry in timeline.after] == [8]
    lonely = read("v1.7.0", "mem_timeline", "without_session_row")
    assert pick(lonely, "session before after") == (None, (), ())
    assert lonely.focus.id == 4


def test_a_real_timeline_with_multi_line_neighbours() -> None:
    timeline = read("v1.20.0", "mem_timeline", "before_and_after")
    assert (timeline.focus.id, [e.id for e in timeline.before]) == (2, [1])
    assert [e.id for e in timeline.after] == [3, 4, 5, 6, 7]
    assert timeline.after[3].preview.startswith("Line one of a long memo.\nLine two follows.")
    assert timeline.after[1].title == 'Say "hi"\tthen\\leave ünïcode'
    assert read("v1.20.0", "mem_timeline", "after_only").before == ()


# sessions, prompts, passive capture, stats ----------------------------------------------------
def test_session_tools() -> None:
    started = read("v1.7.0", "mem_session_start", "started")
    assert pick(started, "id project") == ("session-abc123", "payments")
    assert read("v1.20.0", "mem_session_start", "started_project_ignored").project == "memread-proj"
    assert read("v1.20.0", "mem_session_end", "unknown_session").id == "never-started"
    assert read("v1.7.0", "mem_session_summary", "saved").project == "payments"
    summary = read("v1.20.0", "mem_session_summary", "saved")
    assert summary.notes[0].startswith("Session activity: ")
    prompt = read("v1.20.0", "mem_save_prompt", "saved")
    assert prompt.preview.startswith("How do we retry Stripe calls?")
    assert prompt.preview.endswith("...")


def test_passive_capture_and_stats_counts_are_ints() -> None:
    capture = read("v1.20.0", "mem_capture_passive", "extracted")
    assert pick(capture, "extracted saved duplicates") == (2, 2, 0)
    again = read("v1.20.0", "mem_capture_passive", "duplicate")
    assert pick(again, "extracted saved duplicates") == (1, 0, 1)
    stats = read("v1.7.0", "mem_stats", "counts")
    assert pick(stats, "sessions observations prompts") == (3, 12, 4)
    assert stats.projects == ("payments", "frontend")
    assert read("v1.20.0", "mem_stats", "stats_empty").projects == ()


# project, judge and upstream's curation tools -------------------------------------------------
def test_current_project_plain_and_ambiguous() -> None:
    current = read("v1.20.0", "mem_current_project", "current_project")
    assert pick(current, "project source available_projects") == (
        "memread-proj",
        "dir_basename",
        (),
    )
    assert current.cwd == current.path and current.error_hint is None
    ambiguous = read("v1.20.0", "mem_current_project", "ambiguous")
    assert pick(ambiguous, "project source") == ("", "ambiguous")
    assert ambiguous.available_projects == ("repo-a", "repo-b") and ambiguous.error_hint
    assert read("reference", "mem_current_project", "dir_basename").project == "payments"


def test_upstreams_judgement_and_the_seeds_pair_verdicts() -> None:
    judgement = read("v1.20.0", "mem_judge", "supersedes")
    assert pick(judgement, "relation judgment_status confidence") == ("supersedes", "judged", 0.9)
    assert judgement.reason == "newer" and judgement.relation_id == 1
    judged = read("reference", "mem_judge", "verdicts")
    assert isinstance(judged, JudgedMemories) and judged.outdated == (2,)
    assert [(v.id, v.verdict) for v in judged.verdicts] == [
        (2, "outdated"),
        (4, "complementary"),
        (5, "unrelated"),
    ]
    assert judged.verdict_of(4) == "complementary" and judged.verdict_of(3) is None
    assert pick(judged.pairs[0], "first second relation") == (2, 4, "supersedes")
    assert judged.pairs[1] == PairVerdict(
        first=2, second=5, relation="unrelated", reason="different subjects"
    )
    recorded = read("reference", "mem_judge", "recorded")
    assert isinstance(recorded, JudgmentRecorded)
    assert pick(recorded, "source relation target") == (3, "supersedes", 1)
    assert recorded.judgment_id.startswith("rel-")


def test_upstreams_curation_tools() -> None:
    assert read("v1.20.0", "mem_compare", "related").sync_id.startswith("rel-")
    assert pick(read("v1.20.0", "mem_pin", "pinned"), "id pinned") == (2, True)
    assert pick(read("v1.20.0", "mem_unpin", "unpinned"), "id pinned") == (2, False)
    assert read("v1.20.0", "mem_review", "nothing_to_review").items == ()
    reviewed = read("v1.20.0", "mem_review", "marked_reviewed")
    assert pick(reviewed, "id title state") == (1, "Auth middleware design (v2)", "active")
    diagnosis = read("v1.20.0", "mem_doctor", "report")
    assert diagnosis.status == "blocked"
    assert "sqlite_lock_contention" in [check.check_id for check in diagnosis.checks]
    merged = read("v1.20.0", "mem_merge_projects", "merged")
    assert pick(merged, "canonical sources observations sessions") == ("y", 1, 0, 0)


def test_v2s_project_list() -> None:
    project = {"name": "a", "observation_count": 2, "session_count": 1, "prompt_count": 0}
    text = json.dumps({"projects": [{**project, "directories": ["/src/a"]}], "count": 1})
    (listed,) = answers.read("mem_list_projects", Answer(text)).projects
    assert pick(listed, "name observation_count directories") == ("a", 2, ("/src/a",))
