"""Saving (SAVE): mem_save stores what the agent asks, as given, and only that.

Each check works in a fresh project and finds its memories again by unique tokens (v1.7.0's
``mem_save`` answers no id: ``steps.saved_id`` reads it back by search). Choices worth knowing:

- SAVE-003 sends the seed's four labelled lines (``What:``, ``Why:``, ``Where:``, ``Learned:``)
  and asks for them back as four consecutive lines of the stored content, each as sent.
- SAVE-007 calls each read tool with a token no memory holds (for ``mem_context``, the name of
  a project nothing is saved in), then searches for it in the check's project (a failed search
  stops the check) and, wider where the server can (a failure there is no evidence), in its
  default project and, where ``mem_search`` lists ``all_projects``, in every project.
  ``mem_get_observation`` takes only an id, so its token is in the memory it reads: the search
  must find that memory alone. ``mem_current_project`` lists no argument (upstream and the
  reference), so its token rides in one it does not list, which servers ignore.
- SAVE-008 (a restart of the server) is the harness's to decide, not this module's.
- SAVE-012 sends 60,000 ASCII characters on one line, above both upstream caps (2,000 bytes
  at v1.7.0, 50,000 at v1.20.0; the reference's is 50,000 characters): the stored content must
  be a beginning of it followed by ``... [truncated]`` (the cut's length is the server's own
  cap, not compared). A server that keeps it all has a larger cap (or none), which the rule
  does not reach: not_applicable.
"""

from __future__ import annotations

import re
from typing import Any

from ..facts import MemoryId, Saved, ToolFailure
from . import steps
from .context import MemContext
from .registry import check
from .steps import Project, accepted, hit_of, hit_titled, ids_of

SAVE, SEARCH, GET = "mem_save", "mem_search", "mem_get_observation"  # GET: where listed
CONTEXT, SUGGEST, CURRENT = "mem_context", "mem_suggest_topic_key", "mem_current_project"
#: SAVE-005: the types seed 003 lists for mem_save
SEED_TYPES = ("bugfix", "architecture", "decision", "pattern", "discovery", "config", "learning")
#: SAVE-004: seed 003's two worked examples, with the word each is searched by
STRIPE = (
    "Stripe payments API: minimum retry delay",
    "bugfix",
    "Stripe",
    "What: La API de pagos de Stripe tiene un retry delay mínimo de 3 segundos entre intentos "
    "fallidos.\nWhy: Nuestro cliente hacía reintentos con backoff de 500ms, causando errores 429 "
    "en producción\n     bajo carga alta.\nWhere: src/payments/stripe-client.ts, línea 145. "
    "Configuración en config/stripe.yaml.\nLearned: Siempre revisar los límites de rate del "
    "proveedor antes de implementar retry logic.\n         Stripe documenta esto en su guía de "
    'error handling, sección "Rate limiting".',
)
EVENT_SOURCING = (
    "Inventory module: Event Sourcing instead of CRUD",
    "architecture",
    "Sourcing",
    "What: Elegimos Event Sourcing para el módulo de inventario en lugar de CRUD tradicional.\n"
    "Why: Los auditores necesitan un historial completo e inmutable de cada movimiento de stock."
    "\n     Event Sourcing nos da esto de forma natural sin tablas de auditoría adicionales.\n"
    "Where: src/inventory/, módulo completo. Integra con el event bus en src/events/.\n"
    "Learned: Event Sourcing agrega complejidad de consultas. Para queries de lectura,\n"
    "         usamos proyecciones materializadas (patrón CQRS) en src/projections/.",
)
DEFAULT_TYPE = "manual"
#: SAVE-010: contents with nothing in them
BLANK_CONTENTS = ("", "  \n\t  ")
#: SAVE-011: a suggested key's form
FAMILY_SLUG = re.compile(r"[a-z0-9-]+/[a-z0-9-]+")
#: SAVE-012: more than any upstream cap, and the marker a cut content ends with
LONG_CONTENT_CHARS = 60_000
TRUNCATED = "... [truncated]"


def labelled_lines(token: str) -> list[str]:
    """SAVE-003: the seed's four labelled lines, about ``token``."""
    return [
        f"What: the content of {token} is kept as sent",
        "Why: the seed's format is four labelled lines",
        f"Where: conformance/mem/{token}",
        "Learned: line breaks survive a save",
    ]


@check(rules=("SAVE-001", "SAVE-002"), tools=(SAVE, SEARCH))
async def saved_memory_is_found(ctx: MemContext) -> None:
    """Found by a word of its title (SAVE-001), and by a word only its content has (SAVE-002):
    the memory the save answered (else the one its title search found)."""
    project = await steps.fresh_project(ctx)
    in_title, in_content = ctx.unique("titleword"), ctx.unique("contentword")
    title = f"Saved memory {in_title}"
    content = steps.what_why(in_content)
    saved = await accepted(ctx, "SAVE-001", project, title, content, type="decision")
    ctx.require(isinstance(saved, Saved), "mem_save succeeded", saved)
    assert isinstance(saved, Saved)
    hit = hit_titled(await steps.search(ctx, in_title, project=project.name), title)
    ctx.expect(
        "SAVE-001",
        hit is not None and await steps.type_shown(ctx, hit) == "decision",
        expected=f"mem_search {in_title!r} finds {title!r} of type decision",
        observed=hit,
    )
    memory_id = saved.id if saved.id is not None else hit.id if hit is not None else None
    ctx.require(memory_id is not None, "the memory's id, answered or found by its title", hit)
    assert memory_id is not None
    by_content = await steps.search(ctx, in_content, project=project.name)
    ctx.expect(
        "SAVE-002",
        hit_of(by_content, memory_id) is not None,
        expected=f"mem_search {in_content!r} (a word of the content only) finds #{memory_id}",
        observed=by_content,
    )


@check(rules=("SAVE-003",), tools=(SAVE, SEARCH))
async def content_keeps_its_lines(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    token = ctx.unique("lines")
    sent = labelled_lines(token)
    memory_id = await steps.saved_memory(ctx, project, token, content="\n".join(sent))
    content = (await steps.live(ctx, memory_id, "content")).content
    stored = (content or "").split("\n")
    starts = [i for i, line in enumerate(stored) if line == sent[0]]
    ctx.expect(
        "SAVE-003",
        any(stored[i : i + len(sent)] == sent for i in starts),
        expected=f"the four labelled lines as sent, one after another: {sent}",
        observed=stored,
    )


@check(rules=("SAVE-004",), tools=(SAVE, SEARCH))
async def seed_examples_are_found(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    for title, memory_type, word, content in (STRIPE, EVENT_SOURCING):
        await accepted(ctx, "SAVE-004", project, title, content, type=memory_type)
        found = await steps.search(ctx, word, project=project.name)
        hit = hit_titled(found, title)
        ctx.expect(
            "SAVE-004",
            hit is not None and await steps.type_shown(ctx, hit) == memory_type,
            expected=f"mem_search {word!r} finds {title!r} of type {memory_type}",
            observed=found,
        )


@check(rules=("SAVE-005",), tools=(SAVE, SEARCH))
async def seed_types_are_stored(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    for memory_type in SEED_TYPES:
        token = ctx.unique(memory_type)
        title = f"Typed {token}"
        saved = await accepted(
            ctx, "SAVE-005", project, title, steps.what_why(token), type=memory_type
        )
        if not isinstance(saved, Saved):
            continue
        memory_id = await steps.saved_id(ctx, project, saved, token)
        read = await steps.live(ctx, memory_id, "type")
        ctx.expect(
            "SAVE-005",
            read.type == memory_type,
            expected=f"#{memory_id} read back of type {memory_type}",
            observed=read,
        )
        hit = hit_of(await steps.search(ctx, token, project=project.name), memory_id)
        ctx.expect(
            "SAVE-005",
            hit is not None and await steps.type_shown(ctx, hit) == memory_type,
            expected=f"mem_search {token!r} finds #{memory_id} of type {memory_type}",
            observed=hit,
        )


@check(rules=("SAVE-006",), tools=(SAVE, SEARCH))
async def saves_without_key_insert(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    first, second = ctx.unique("first"), ctx.unique("second")
    first_id = await steps.saved_memory(ctx, project, first)
    second_id = await steps.saved_memory(ctx, project, second)
    ctx.expect(
        "SAVE-006",
        first_id != second_id,
        expected="two saves without topic_key, two ids",
        observed=[first_id, second_id],
    )
    found = await steps.found_ids(ctx, first, project=project.name)
    ctx.expect(
        "SAVE-006",
        found == [first_id],
        expected=f"the first memory, #{first_id}, still found by {first!r}",
        observed=found,
    )


async def _read_calls(ctx: MemContext, project: Project) -> dict[str, set[MemoryId]]:
    """SAVE-007: each read tool called with a token; token -> the ids its search may find."""
    searched, suggested, current = (ctx.unique(t) for t in ("search", "suggest", "current"))
    gotten = ctx.unique("gotten")
    gotten_id = await steps.saved_memory(ctx, project, gotten)
    listed = set((await ctx.listed()).keys())
    probes: list[tuple[str, dict[str, Any]]] = [
        (SEARCH, {"query": searched, "project": project.name}),
        (GET, {"id": gotten_id}),
        (SUGGEST, {"type": "decision", "title": suggested, "content": steps.what_why(suggested)}),
        (CURRENT, {"conformance_note": current}),
    ]
    for tool, arguments in probes:
        if tool in listed:
            # the current-project probe carries its token in an argument no schema names
            await ctx.call(tool, arguments, as_given=tool == CURRENT)
    untouched = await steps.fresh_project(ctx, "untouched")
    await ctx.call(CONTEXT, {"project": untouched.name})
    tokens = {searched: set(), suggested: set(), gotten: {gotten_id}, untouched.name: set()}
    return tokens | ({current: set()} if CURRENT in listed else {})


@check(rules=("SAVE-007",), tools=(SAVE, SEARCH, CONTEXT, SUGGEST))
async def reads_store_nothing(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    tokens = await _read_calls(ctx, project)
    wider: list[dict[str, Any]] = [{}]
    if "all_projects" in await ctx.properties(SEARCH):
        wider.append({"all_projects": True})
    for token, allowed in tokens.items():
        found = set(await steps.found_ids(ctx, token, project=project.name))
        for where in wider:
            # a failed wider search finds nothing: it is not always possible
            found |= set(ids_of(await steps.search(ctx, token, **where)))
        ctx.expect(
            "SAVE-007",
            found <= allowed,
            expected=f"mem_search {token!r} finds no memory but {sorted(allowed)}",
            observed=sorted(found),
        )


@check(rules=("SAVE-009",), tools=(SAVE, SEARCH))
async def type_defaults_to_manual(ctx: MemContext) -> None:
    if "type" in await ctx.required(SAVE):  # as seed 003's signature has it: no such save
        ctx.not_applicable("SAVE-009", "mem_save's input schema requires type")
        return
    project = await steps.fresh_project(ctx)
    token = ctx.unique("untyped")
    arguments = {"title": f"Untyped {token}", "content": steps.what_why(token)}
    saved = await steps.fact(ctx, SAVE, arguments | {"project": project.name})
    ctx.expect(
        "SAVE-009",
        isinstance(saved, Saved),
        expected="a save without type, which the schema does not require, accepted",
        observed=saved,
    )
    if not isinstance(saved, Saved):
        return
    stored = await steps.live(ctx, await steps.saved_id(ctx, project, saved, token), "type")
    ctx.expect(
        "SAVE-009",
        stored.type == DEFAULT_TYPE,
        expected=f"a save without type stored as {DEFAULT_TYPE!r}",
        observed=stored.type,
    )


@check(rules=("SAVE-010",), tools=(SAVE, SEARCH))
async def blank_content_is_refused(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    for content in BLANK_CONTENTS:
        token = ctx.unique("blank")
        arguments = {"title": f"Blank {token}", "type": "discovery", "content": content}
        saved = await steps.fact(ctx, SAVE, arguments | {"project": project.name})
        ctx.expect(
            "SAVE-010",
            isinstance(saved, ToolFailure),
            expected=f"mem_save of content {content!r} answers isError",
            observed=saved,
        )
        found = await steps.found_ids(ctx, token, project=project.name)
        ctx.expect(
            "SAVE-010",
            not found,
            expected=f"nothing stored for content {content!r}",
            observed=found,
        )


@check(rules=("SAVE-011",), tools=(SAVE,))
async def save_suggests_a_key(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    unkeyed = ctx.unique("unkeyed")
    saved = await steps.save(ctx, project, f"Unkeyed {unkeyed}", steps.what_why(unkeyed))
    key = saved.suggested_topic_key
    ctx.expect(
        "SAVE-011",
        key is not None and FAMILY_SLUG.fullmatch(key) is not None,
        expected="a save without topic_key answers a suggested key family/slug",
        observed=saved,
    )
    keyed = ctx.unique("keyed")
    content = steps.what_why(keyed)
    saved = await steps.save(ctx, project, f"Keyed {keyed}", content, topic_key=f"notes/{keyed}")
    ctx.expect(
        "SAVE-011",
        saved.suggested_topic_key is None,
        expected="a save with topic_key answers no suggestion",
        observed=saved,
    )


@check(rules=("SAVE-012",), tools=(SAVE, SEARCH))
async def long_content_is_cut(ctx: MemContext) -> None:
    project = await steps.fresh_project(ctx)
    token = ctx.unique("long")
    head = f"What: a long content, {token}, on one line: "
    sent = (head + "filler " * ((LONG_CONTENT_CHARS - len(head)) // len("filler "))).rstrip()
    saved = await accepted(ctx, "SAVE-012", project, f"Long {token}", sent, type="discovery")
    ctx.require(isinstance(saved, Saved), "the long content saved", saved)
    assert isinstance(saved, Saved)
    memory_id = await steps.saved_id(ctx, project, saved, token)
    stored = (await steps.live(ctx, memory_id, "content")).content or ""
    if stored == sent:
        ctx.not_applicable("SAVE-012", f"a content of {len(sent)} bytes was kept whole")
        return
    kept = stored.removesuffix(TRUNCATED)
    ctx.expect(
        "SAVE-012",
        stored.endswith(TRUNCATED) and sent.startswith(kept) and len(kept) < len(sent),
        expected=f"the content's first characters (to the cap) then {TRUNCATED!r}",
        observed=f"{len(stored)} characters ending {stored[-60:]!r}",
    )
