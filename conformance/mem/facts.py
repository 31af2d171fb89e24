"""What a ``mem_*`` answer says, as typed facts: one frozen dataclass per kind of answer.

The reader (``answers.read``) builds them from any version's answer: v1.7.0's plain text, the
JSON-in-text of v1.1x and later, and the reference's text. A field a version does not give is
``None`` (ids on v1.7.0's ``mem_save``, ``sync_id`` and ``state`` before v1.1x); a field the answer
gives is typed (ids and counts are ``int``), never a guess. Timestamps stay the strings the server
wrote, since versions format them differently (UTC, local time, RFC 3339).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: A memory's id as the server issued it: upstream's are integers, a vendor's may be strings
#: (``"obs_1a2b"``, ``"mem-42"``); the kit sends it back exactly as it read it.
MemoryId = int | str


@dataclass(frozen=True, kw_only=True)
class Envelope:
    """Where a JSON-in-text answer (v1.1x and later) says the call ran: the project it resolved,
    how (``project_source``: ``dir_basename``, ``git_remote``, ``explicit_override``, ``session``,
    ``all_projects``, …) and that project's folder (``""`` when it has none)."""

    project: str
    source: str
    path: str
    warning: str | None = None


@dataclass(frozen=True, kw_only=True)
class Fact:
    """What every fact carries: the envelope of a JSON-in-text answer, ``None`` for plain text."""

    envelope: Envelope | None = None
    #: every text the answer shows (its text blocks and the strings of its structured content),
    #: for a check that only asks whether a unique token is there (``steps.shows``)
    shown: str = field(default="", repr=False, compare=False)


@dataclass(frozen=True, kw_only=True)
class ToolFailure(Fact):
    """An ``isError`` result, in either error style: plain text (``message`` is the text,
    ``error_code`` is ``None``) or the structured ``{"error_code", "message", …}`` of v1.1x."""

    message: str
    error_code: str | None = None
    available_projects: tuple[str, ...] = ()
    hint: str | None = None
    recovery_token: str | None = None


# saving and reading one memory ------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Truncation:
    """The warning that a saved or updated content was cut: its length before and after."""

    original: int
    kept: int


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """A memory that ``mem_save`` (v1.1x, and the reference) surfaced as a possible conflict,
    to judge. ``sync_id`` and ``score`` are upstream's (``None`` from the reference)."""

    id: MemoryId
    title: str
    type: str
    judgment_id: str
    sync_id: str | None = None
    score: float | None = None
    topic_key: str | None = None


@dataclass(frozen=True, kw_only=True)
class Saved(Fact):
    """``mem_save``. ``id`` is ``None`` where the version does not say it (v1.7.0); the answer is
    the same for an insert, a dedupe hit and a topic upsert, so counters are read back with
    ``mem_get_observation``. ``judgment_required`` is ``None`` before conflict surfacing (v1.1x);
    ``notes`` keeps the other lines (normalised or similar project warnings). ``title`` and
    ``type`` are ``None`` where the answer does not echo them (seed 003 gives no answer form)."""

    title: str | None = None
    type: str | None = None
    id: MemoryId | None = None
    sync_id: str | None = None
    state: str | None = None
    suggested_topic_key: str | None = None
    truncation: Truncation | None = None
    judgment_required: bool | None = None
    judgment_id: str | None = None
    candidates: tuple[Candidate, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Observation(Fact):
    """One memory with its counters: ``mem_get_observation``'s answer, or the record a vendor's
    ``mem_search`` (or ``mem_save``) answer gives as data (``steps.live``). A field the answer
    does not show is ``None`` (a check needing it is then undecided: ``steps.live``);
    ``updated_at`` and ``last_seen_at`` are the reference's extra lines (upstream does not
    show them)."""

    id: MemoryId
    type: str | None = None
    title: str | None = None
    content: str | None = None
    session_id: str | None = None
    scope: str | None = None
    duplicate_count: int | None = None
    revision_count: int | None = None
    created_at: str | None = None
    project: str | None = None
    topic_key: str | None = None
    tool_name: str | None = None
    updated_at: str | None = None
    last_seen_at: str | None = None


@dataclass(frozen=True, kw_only=True)
class Updated(Fact):
    """``mem_update``: the memory as it is after the update (a field the answer does not
    show is ``None``)."""

    id: MemoryId | None = None
    title: str | None = None
    type: str | None = None
    scope: str | None = None
    truncation: Truncation | None = None


@dataclass(frozen=True, kw_only=True)
class Deleted(Fact):
    """``mem_delete``: ``hard`` for a permanent delete, false for a soft one (``None``: the
    answer does not say)."""

    id: MemoryId | None = None
    hard: bool | None = None


@dataclass(frozen=True, kw_only=True)
class Suggestion(Fact):
    """``mem_suggest_topic_key``: the suggested ``family/segment`` key."""

    topic_key: str


# search ---------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Annotation:
    """A relation line under a search hit (v1.1x): ``supersedes``, ``superseded_by`` and
    ``conflicts`` name the other memory by id and title; ``contested`` (a pending conflict) names
    it by sync id."""

    kind: str
    other_id: MemoryId | None = None
    other_sync_id: str | None = None
    other_title: str | None = None


@dataclass(frozen=True, kw_only=True)
class Hit:
    """One search result. ``preview`` is the content as shown (cut at 300 characters, with
    ``...``; a ``[preview]`` marker is taken off). ``sync_id``, ``state`` and ``pinned`` come from
    v1.1x's ``results[]``; ``project`` is ``None`` when the memory has none."""

    id: MemoryId
    title: str
    type: str | None = None
    scope: str | None = None
    created_at: str | None = None
    preview: str | None = None
    project: str | None = None
    sync_id: str | None = None
    state: str | None = None
    pinned: bool | None = None
    annotations: tuple[Annotation, ...] = ()


@dataclass(frozen=True, kw_only=True)
class SearchResult(Fact):
    """``mem_search``. A search without hits is not an error: ``none_found`` and its ``query``."""

    hits: tuple[Hit, ...] = ()
    none_found: bool = False
    query: str | None = None

    @property
    def ids(self) -> list[MemoryId]:
        return [hit.id for hit in self.hits]


# context and timeline -------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ContextSession:
    """A ``### Recent Sessions`` line: the summary is the one ``mem_session_end`` stored."""

    project: str
    started_at: str
    observation_count: int
    summary: str | None = None


@dataclass(frozen=True, kw_only=True)
class ContextPrompt:
    created_at: str
    content: str


@dataclass(frozen=True, kw_only=True)
class ContextObservation:
    """A ``### Recent Observations`` (or ``### Pinned``) line; content cut at 300 characters
    (``None``: a vendor's context that shows no type or content)."""

    title: str
    type: str | None = None
    content: str | None = None


@dataclass(frozen=True, kw_only=True)
class LatestSummary:
    """The reference's ``### Latest Session Summary``: the last summary of the project in full
    (seed 003: what ``mem_context`` brings back next time)."""

    title: str
    updated_at: str
    content: str


@dataclass(frozen=True, kw_only=True)
class ContextTotals:
    """The ``Memory stats:`` footer: store-wide counts, whatever the project asked for."""

    sessions: int | None = None
    observations: int | None = None
    projects: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Context(Fact):
    """``mem_context``. ``empty`` when the server found nothing to say; ``truncated`` when the
    answer says it was cut to its byte budget (the reference's last line ``[truncated]``);
    ``totals`` is ``None`` when the footer is absent (a context cut by a byte budget)."""

    empty: bool = False
    truncated: bool = False
    latest_summary: LatestSummary | None = None
    sessions: tuple[ContextSession, ...] = ()
    prompts: tuple[ContextPrompt, ...] = ()
    pinned: tuple[ContextObservation, ...] = ()
    observations: tuple[ContextObservation, ...] = ()
    #: the personal memories a vendor's context lists apart from the project's
    personal: tuple[ContextObservation, ...] = ()
    totals: ContextTotals | None = None

    @property
    def summaries(self) -> tuple[ContextObservation, ...]:
        """The session summaries listed among the observations (``mem_session_summary`` saves
        them as observations of type ``session_summary``)."""
        return tuple(o for o in self.observations if o.type == "session_summary")


@dataclass(frozen=True, kw_only=True)
class TimelineSession:
    project: str
    started_at: str
    total_observations: int
    summary: str | None = None


@dataclass(frozen=True, kw_only=True)
class TimelineEntry:
    """A neighbour in a timeline; its content cut at 150 characters."""

    id: MemoryId
    type: str
    title: str
    preview: str


@dataclass(frozen=True, kw_only=True)
class TimelineFocus:
    """The memory a timeline is about; its content cut at 500 characters."""

    id: MemoryId
    type: str
    title: str
    content: str
    created_at: str


@dataclass(frozen=True, kw_only=True)
class Timeline(Fact):
    """``mem_timeline``: the focus and its neighbours in the same session, oldest first.
    ``session`` is ``None`` when the server has no row for the focus's session."""

    focus: TimelineFocus
    before: tuple[TimelineEntry, ...] = ()
    after: tuple[TimelineEntry, ...] = ()
    session: TimelineSession | None = None


# sessions, prompts, passive capture, stats ----------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class SessionStarted(Fact):
    id: str
    project: str


@dataclass(frozen=True, kw_only=True)
class SessionEnded(Fact):
    id: str | None = None


@dataclass(frozen=True, kw_only=True)
class SummarySaved(Fact):
    """``mem_session_summary``; ``notes`` keeps the other lines (v1.1x's activity score)."""

    project: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class PromptSaved(Fact):
    """``mem_save_prompt``: the prompt as echoed, cut at 80 characters with ``...``."""

    preview: str


@dataclass(frozen=True, kw_only=True)
class PassiveCapture(Fact):
    """``mem_capture_passive``: how many learnings it found, saved and found already stored
    (``None``: the answer does not say)."""

    extracted: int | None = None
    saved: int | None = None
    duplicates: int | None = None


@dataclass(frozen=True, kw_only=True)
class Stats(Fact):
    """``mem_stats``: store-wide counts (observations leave out soft-deleted ones)."""

    sessions: int
    observations: int
    prompts: int
    projects: tuple[str, ...]


# project detection and judgement (v1.1x) ------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CurrentProject(Fact):
    """``mem_current_project``, never an error: an ambiguous folder gives ``project == ""``,
    ``source == "ambiguous"``, the ``available_projects`` and an ``error_hint``."""

    project: str
    source: str | None = None
    path: str | None = None
    cwd: str | None = None
    available_projects: tuple[str, ...] = ()
    warning: str | None = None
    error_hint: str | None = None


@dataclass(frozen=True, kw_only=True)
class Judgement(Fact):
    """Upstream's ``mem_judge`` (v1.1x): the relation row the verdict wrote on a pending
    conflict (``source_id``/``target_id`` are the memories' sync ids)."""

    relation_id: int
    sync_id: str
    source_id: str
    target_id: str
    relation: str
    judgment_status: str
    reason: str | None = None
    evidence: str | None = None
    confidence: float | None = None
    session_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class JudgmentRecorded(Fact):
    """The reference's answer to a verdict on a ``judgment_id``: the saved memory (``source``)
    stands in ``relation`` to the candidate (``target``)."""

    judgment_id: str
    source: MemoryId
    target: MemoryId
    relation: str


@dataclass(frozen=True, kw_only=True)
class MemoryVerdict:
    """One memory's verdict in the seed's ``mem_judge``: ``contradictory``, ``complementary``,
    ``outdated`` or ``unrelated``."""

    id: MemoryId
    verdict: str


@dataclass(frozen=True, kw_only=True)
class PairVerdict:
    """How two memories relate, in the reference's seed-style ``mem_judge``."""

    first: MemoryId
    second: MemoryId
    relation: str
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class JudgedMemories(Fact):
    """``mem_judge`` as seed 003 describes it (the reference's): given memory ids, a verdict on
    each, and how each pair relates. Upstream's ``mem_judge`` answers a ``Judgement``."""

    verdicts: tuple[MemoryVerdict, ...] = ()
    pairs: tuple[PairVerdict, ...] = ()

    def verdict_of(self, memory_id: MemoryId) -> str | None:
        """The verdict on ``memory_id``, ``None`` when the answer gives it none."""
        return next((v.verdict for v in self.verdicts if v.id == memory_id), None)

    @property
    def outdated(self) -> tuple[MemoryId, ...]:
        return tuple(v.id for v in self.verdicts if v.verdict == "outdated")


# upstream's other tools (v1.1x and later) -----------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Compared(Fact):
    """``mem_compare``: the relation's sync id, ``""`` for ``not_conflict`` (nothing stored)."""

    sync_id: str


@dataclass(frozen=True, kw_only=True)
class Pinned(Fact):
    """``mem_pin`` and ``mem_unpin``: the memory's pin state after the call."""

    id: MemoryId
    sync_id: str
    pinned: bool


@dataclass(frozen=True, kw_only=True)
class ReviewItem:
    id: MemoryId
    sync_id: str
    title: str
    type: str
    state: str
    project: str | None = None
    review_after: str | None = None


@dataclass(frozen=True, kw_only=True)
class ReviewList(Fact):
    """``mem_review`` with ``action: list``."""

    items: tuple[ReviewItem, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Reviewed(Fact):
    """``mem_review`` with ``action: mark_reviewed``."""

    id: MemoryId
    title: str
    type: str
    sync_id: str | None = None
    state: str | None = None


@dataclass(frozen=True, kw_only=True)
class DiagnosticCheck:
    check_id: str
    result: str
    message: str


@dataclass(frozen=True, kw_only=True)
class Diagnosis(Fact):
    """``mem_doctor``: the overall status and each check's result."""

    status: str
    checks: tuple[DiagnosticCheck, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Merged(Fact):
    """``mem_merge_projects``: how many rows moved into ``canonical``."""

    canonical: str
    sources: int
    observations: int
    sessions: int
    prompts: int


@dataclass(frozen=True, kw_only=True)
class ListedProject:
    name: str
    observation_count: int
    session_count: int
    prompt_count: int
    directories: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ProjectList(Fact):
    """``mem_list_projects`` (v2 and later)."""

    projects: tuple[ListedProject, ...] = ()
