"""mem_judge (JUDGE): the seed's list form, and upstream's verdict on a judgment of a save.

JUDGE-001 and JUDGE-002 call the seed's form, ``mem_judge(ids=[...])``, whatever the server
publishes: upstream's mem_judge (which records a verdict on one ``judgment_id``) fails them, the
divergence their rules name. Which verdict a memory deserves is a judgement of meaning (JUDGE-003,
not testable), so the checks judge the shape of the answer: a verdict of the seed's words on
every id given, the same verdicts again on an unchanged store, and the refusals JUDGE-002 pins.

JUDGE-004 and JUDGE-005 need upstream's ``judgment_id`` and ``relation``: a server whose
mem_judge schema lacks either gets them not applicable. JUDGE-004's candidate is a memory of
the same project whose title is the saved one's but for its last word, saved after ``FILLERS``
unrelated memories: a score that depends on how many memories the store holds (upstream's
BM25) then reads the same in a run of this rule alone, its replay and its re-check as in a whole
run. JUDGE-005 only needs a
pending judgment, which upstream v1.20 gives only for a weak full-text match (its floor keeps
the rows whose FTS5 bm25 is at least -2.0, and FTS5 scores a better match lower): so its
candidate holds the shared token in a title of a hundred more words (a long column weighs each
match little) and not in its content. Its "records nothing" is read where a client can see a
recorded relation: the annotations mem_search shows under each memory are the same before and
after the refused verdict.
"""

from __future__ import annotations

from typing import Any

from ..facts import Annotation, JudgedMemories, MemoryId, Saved, SearchResult, ToolFailure
from .context import MemContext
from .registry import check
from .steps import (
    Project,
    absent_id,
    fact,
    fresh_project,
    requirements_unmet,
    save,
    saved_memory,
    search,
    what_why,
)

SAVE, JUDGE = "mem_save", "mem_judge"
JUDGING = (SAVE, JUDGE)
#: the seed's verdicts on a memory
VERDICTS = ("contradictory", "complementary", "outdated", "unrelated")
#: upstream's relation words, one of them, and a word that is none of them
RELATION, NOT_A_RELATION = "compatible", "contradicts"
UNKNOWN_JUDGMENT = "rel-0000000000000000"
#: JUDGE-005: the hundred words that lengthen the candidate's title, and its content (which
#: holds no word of the saved title)
PADDING = " ".join(["padding"] * 100)
PADDED_CONTENT = "A memory with a long title, padded word after word."
#: the unrelated memories JUDGE-004 saves first (see the module's docstring)
FILLERS = 20


async def judged(ctx: MemContext, ids: list[MemoryId]) -> Any:
    """The fact of ``mem_judge`` of ``ids`` (the seed's form, sent as the seed names it when the
    schema publishes no list of ids: the divergence JUDGE-001 and JUDGE-002 name)."""
    return await fact(ctx, JUDGE, {"ids": ids}, as_given=not await ctx.publishes(JUDGE, "ids"))


def verdicts(found: Any, ids: list[MemoryId]) -> dict[MemoryId, str | None]:
    """The verdict on each of ``ids`` (``None``: none given, or no list answer)."""
    if not isinstance(found, JudgedMemories):
        return dict.fromkeys(ids)
    return {memory: found.verdict_of(memory) for memory in ids}


def each_judged(found: Any, ids: list[MemoryId]) -> bool:
    """Whether the answer says of each of ``ids`` one of the seed's verdicts: on the memory
    itself, or as the relation of a pair it is in."""
    related = {
        memory
        for pair in (found.pairs if isinstance(found, JudgedMemories) else ())
        if pair.relation in VERDICTS
        for memory in (pair.first, pair.second)
    }
    own = verdicts(found, ids)
    return all(own[memory] in VERDICTS or memory in related for memory in ids)


async def some_memories(ctx: MemContext, project: Project, count: int) -> list[MemoryId]:
    """``count`` memories of ``project``: the first ones on one topic (titles with one head),
    the last on another."""
    topic = ctx.unique("judgetopic")
    titles = [f"Auth flow: {topic} step {n}" for n in range(count - 1)]
    titles.append(f"Release notes {ctx.unique('judgeother')}")
    ids = []
    for title in titles:
        token = ctx.unique("judgemem")
        ids.append(await saved_memory(ctx, project, token, title=f"{title} {token}"))
    return ids


@check(rules=("JUDGE-001",), tools=JUDGING)
async def judge_gives_each_memory_a_verdict(ctx: MemContext) -> None:
    project = await fresh_project(ctx)
    ids = await some_memories(ctx, project, 3)
    found = await judged(ctx, ids)
    ctx.expect(
        "JUDGE-001",
        each_judged(found, ids),
        expected=f"mem_judge(ids={ids}) says of each whether it contradicts, complements or is "
        f"outdated ({', '.join(VERDICTS)})",
        observed=found,
    )


@check(rules=("JUDGE-002",), tools=JUDGING)
async def judge_takes_a_list_of_ids(ctx: MemContext) -> None:
    listed = ((await ctx.input_schema(JUDGE)).get("properties") or {}).get("ids")
    ctx.expect(
        "JUDGE-002",
        isinstance(listed, dict) and listed.get("type") == "array",
        expected="mem_judge's input schema lists ids, an array",
        observed=listed,
    )
    project = await fresh_project(ctx)
    ids = await some_memories(ctx, project, 2)
    first, again = await judged(ctx, ids), await judged(ctx, ids)
    ctx.expect(
        "JUDGE-002",
        each_judged(first, ids),
        expected=f"a verdict among {', '.join(VERDICTS)} on each of {ids}",
        observed=first,
    )
    ctx.expect(
        "JUDGE-002",
        verdicts(first, ids) == verdicts(again, ids),
        expected="the same verdicts when the same ids are judged again",
        observed={"first": verdicts(first, ids), "again": verdicts(again, ids)},
    )
    refused = {"one id": ids[:1], "an id no memory has": [ids[0], absent_id(ids[-1])]}
    for what, given in refused.items():
        found = await judged(ctx, given)
        ctx.expect(
            "JUDGE-002",
            isinstance(found, ToolFailure),
            expected=f"mem_judge of {what} ({given}) answers isError",
            observed=found,
        )


async def _resembling_pair(ctx: MemContext, project: Project) -> tuple[MemoryId, Saved]:
    """A memory, and the save of a second one whose title has every word of the first's and
    one more."""
    token = ctx.unique("judgepair")
    title = f"Auth middleware {token} token rotation"
    older = await saved_memory(ctx, project, token, title=title)
    newer = await save(ctx, project, f"{title} policy", what_why(token, "a second look"))
    return older, newer


async def _pending_judgment(ctx: MemContext, project: Project) -> tuple[str, Saved]:
    """A token, and the save of a memory titled by it and one more word whose candidate is a
    memory with the token in a long title (see the module's docstring)."""
    token = ctx.unique("judgepending")
    title = f"{token} {PADDING}"
    await saved_memory(ctx, project, token, title=title, content=PADDED_CONTENT)
    return token, await save(ctx, project, f"{token} notes", what_why(token, "a later note"))


async def _verdict(ctx: MemContext, project: Project, judgment_id: str, relation: str) -> Any:
    """The fact of upstream's mem_judge: ``relation`` on ``judgment_id``, in the project's
    session where the schema takes one."""
    arguments = {"judgment_id": judgment_id, "relation": relation, "session_id": project.session}
    return await fact(ctx, JUDGE, await ctx.offered(JUDGE, arguments))


@check(rules=("JUDGE-004",), tools=JUDGING)
async def save_surfaces_candidates_to_judge(ctx: MemContext) -> None:
    if await requirements_unmet(ctx, "JUDGE-004"):
        return
    project = await fresh_project(ctx)
    for number in range(FILLERS):  # a store as full in a run of this rule alone as in any
        filler = ctx.unique(f"filler{number}")
        await saved_memory(ctx, project, filler, title=f"Unrelated {filler}")
    older, newer = await _resembling_pair(ctx, project)
    candidates = {candidate.id: candidate.judgment_id for candidate in newer.candidates}
    ctx.expect(
        "JUDGE-004",
        newer.judgment_required is True and older in candidates and all(candidates.values()),
        expected=f"judgment_required true and #{older} among the candidates, each with a "
        "judgment_id",
        observed=newer,
    )
    ctx.require(older in candidates, f"#{older} a candidate", newer)
    recorded = await _verdict(ctx, project, candidates[older], RELATION)
    ctx.expect(
        "JUDGE-004",
        not isinstance(recorded, ToolFailure),
        expected=f"mem_judge of {candidates[older]} with relation {RELATION} succeeds",
        observed=recorded,
    )


async def _annotations(ctx: MemContext, project: Project, token: str) -> dict[MemoryId, Any]:
    """The relation annotations mem_search shows under each memory ``token`` finds."""
    found = await search(ctx, token, project=project.name)
    ctx.require(isinstance(found, SearchResult), "mem_search succeeded", found)
    assert isinstance(found, SearchResult)
    return {hit.id: _sorted(hit.annotations) for hit in found.hits}


def _sorted(annotations: tuple[Annotation, ...]) -> list[Annotation]:
    return sorted(annotations, key=repr)


@check(rules=("JUDGE-005",), tools=JUDGING)
async def judge_refuses_unknown_judgments_and_relations(ctx: MemContext) -> None:
    if await requirements_unmet(ctx, "JUDGE-005"):
        return
    project = await fresh_project(ctx)
    unknown = await _verdict(ctx, project, UNKNOWN_JUDGMENT, "related")
    ctx.expect(
        "JUDGE-005",
        isinstance(unknown, ToolFailure),
        expected=f"mem_judge of the unknown judgment_id {UNKNOWN_JUDGMENT} answers isError",
        observed=unknown,
    )
    token, newer = await _pending_judgment(ctx, project)
    if newer.judgment_id is None:  # JUDGE-004's business: this rule needs a pending judgment
        ctx.undecided("the save meant to leave a judgment pending answers none", newer)
    assert newer.judgment_id is not None
    before = await _annotations(ctx, project, token)
    refused = await _verdict(ctx, project, newer.judgment_id, NOT_A_RELATION)
    ctx.expect(
        "JUDGE-005",
        isinstance(refused, ToolFailure),
        expected=f"mem_judge with relation {NOT_A_RELATION} answers isError",
        observed=refused,
    )
    after = await _annotations(ctx, project, token)
    ctx.expect(
        "JUDGE-005",
        before == after,
        expected="the refused verdict records nothing: mem_search's annotations unchanged",
        observed={"before": before, "after": after},
    )
