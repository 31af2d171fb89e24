"""Check of bounded cost (SCHEMA-040, DESIGN's ruling "Bounded cost").

Arguments at the seed's bounds, shaped to trip what is not linear in their size: the most
citations with the longest references (sorting and uniqueness of long ids with one prefix),
unsortable duplicates (objects where ids belong, which a pairwise uniqueness test compares two
by two), texts of repeated patterns (which backtracking credential or URL patterns rescan), and
the longest query of FTS syntax. Each answer is timed (``BaseContext.timed``): one slower than
half the call time-out reads ``warn`` (the rule is a profile rule), and so does a call that gets
no answer within the time-out, with the same evidence, never ``error``: on a loaded machine the
same slow server does either from run to run. The admission of the heaviest capture is sent
together with a search of another scope, which must not be held up either.

Only time is judged here: whether each answer is right is other rules' business.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from engram_conformance.spec.engram_memory import Spec, canonical_json
from engram_conformance.strategies.engram_memory import envelopes

from ...observation import Observation
from ...session import at_once
from ..host import Identity
from .context import ADMIT, CAPTURE, SEARCH, CheckContext
from .registry import check

RULE = "SCHEMA-040"
#: An answer slower than this share of the call time-out reads slow.
SLOW_SHARE = 0.5
#: Texts that naive patterns rescan from every position (URL userinfo, key blocks, tokens,
#: base64 and hex runs, key=value pairs).
REPEATED_PATTERNS = (
    "a.",
    "a:a@",
    "-----BEGIN ",
    "eyJa.",
    "aA0+/",
    "0f",
    "key=",
    "= ",
    "\u200ba",
    "a-",
)
#: The longest query, in FTS5 and Lucene syntax, with unbalanced quotes and operators.
QUERY_PATTERN = '"a" OR a* NEAR(b c) -d (e '


def _bound(spec: Spec, name: str) -> int:
    return next(int(limit.max) for limit in spec.limits if limit.name == name)


def _padded(prefix: str, index: int, length: int) -> str:
    """A distinct id of ``length`` bytes whose first ``length - 8`` are the same for all."""
    return f"{prefix * (length - 8)}{index:08d}"


def _size(arguments: Any) -> int:
    return len(canonical_json(arguments))


def _most_citations(spec: Spec, arguments: dict[str, Any]) -> dict[str, Any]:
    """A valid capture with every list of citations at its bound and every reference at its
    longest; its text fills what the argument limit leaves."""
    longest, locator = _bound(spec, "opaque_ref"), _bound(spec, "locator")
    count = min(_bound(spec, "citations"), _bound(spec, "citation_ids"))
    ids = [_padded("c", index, longest) for index in range(count)]
    payload = arguments["payload"]
    payload["citations"] = [
        {
            "citation_id": citation_id,
            "source_ref": _padded("s", index, longest),
            "locator": {"scheme": "l" * locator, "value": _padded("v", index, locator)},
            "content_digest": "sha256:" + "0" * 64,
        }
        for index, citation_id in enumerate(ids)
    ]
    for component in payload["components"]:
        component["citation_ids"] = list(ids)
    payload["primary_event"]["citation_id"] = ids[0]
    arguments["evidence"]["citation_ids"] = list(ids)
    _fill(spec, arguments, "note ")
    return arguments


def _primary_component(payload: dict[str, Any]) -> dict[str, Any]:
    primary = payload["primary_component_id"]
    return next(c for c in payload["components"] if c["component_id"] == primary)


def _fill(spec: Spec, arguments: dict[str, Any], filler: str) -> None:
    """Lengthen the primary component's text toward the argument limit (with some room)."""
    payload = arguments["payload"]
    primary = _primary_component(payload)
    room = spec.contract["argument_max_bytes"] - _size(arguments) - 4096
    limit = _bound(spec, "component_text") - len(primary["text"].encode())
    extra = max(0, min(room, limit)) // len(filler.encode())
    primary["text"] += " " + filler * max(0, extra - 1)


def _unsortable_duplicates(spec: Spec, arguments: dict[str, Any]) -> dict[str, Any]:
    """A capture whose evidence citation ids are thousands of small objects, the last equal to
    the first but for key order: it is refused, and only a pairwise test is slow to say so."""
    budget = spec.contract["argument_max_bytes"] * 3 // 4
    count = budget // len(canonical_json({"i": 10**7, "p": "pp"}))
    items: list[Any] = [{"i": index, "p": "pp"} for index in range(count)]
    arguments["evidence"]["citation_ids"] = [*items, {"p": "pp", "i": 0}]
    return arguments


def _repeated_patterns(spec: Spec, arguments: dict[str, Any]) -> dict[str, Any]:
    """A valid capture with one component per pattern, each text at its longest."""
    payload = arguments["payload"]
    template = _primary_component(payload)
    longest = _bound(spec, "component_text")
    room = spec.contract["argument_max_bytes"] - _size(arguments) - 4096
    per_component = min(longest, room // len(REPEATED_PATTERNS)) - 64
    for index, pattern in enumerate(REPEATED_PATTERNS):
        repeats = per_component // len(pattern.encode())
        payload["components"].append(
            {**template, "component_id": f"component:pattern{index}", "text": pattern * repeats}
        )
    return arguments


def longest_query(spec: Spec) -> str:
    """A query at its byte bound, of FTS5 and Lucene syntax."""
    longest = _bound(spec, "query")
    return (QUERY_PATTERN * (longest // len(QUERY_PATTERN)))[:longest]


def _slowest_allowed_ms(ctx: CheckContext) -> float:
    return ctx.session.call_timeout_s * SLOW_SHARE * 1000


async def _in_time(
    ctx: CheckContext, what: str, send: Callable[[], Awaitable[Observation]], sent: Any
) -> Observation | None:
    """``send``'s answer, judged for time (None when none came within the call time-out)."""
    sized = f"{what} ({_size(sent)} bytes of arguments)"
    return await ctx.timed(RULE, sized, send, _slowest_allowed_ms(ctx))


WORST_CASES = {
    "a capture with the most citations and the longest references": _most_citations,
    "a capture with unsortable duplicate citation ids": _unsortable_duplicates,
    "a capture of texts of repeated patterns": _repeated_patterns,
}


#: The worst cases within the seed's bounds, whose admission is timed too; a server that
#: accepts the others (over a ``maxItems``) breaks a schema rule, not this one.
WITHIN_BOUNDS = (_most_citations, _repeated_patterns)


def worst_captures(
    spec: Spec, fresh: Callable[[], dict[str, Any]]
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each worst case, made from a ``fresh`` valid capture of unique text (the benchmarks
    send them too)."""
    for what, shaped in WORST_CASES.items():
        yield what, shaped(spec, fresh())


def _fresh_capture(ctx: CheckContext) -> Callable[[], dict[str, Any]]:
    return lambda: ctx.capture_arguments(f"note {ctx.unique('bounds')}")


@check(rules=(RULE,), tools=(CAPTURE, ADMIT, SEARCH), alone=True)
async def calls_at_the_bounds_answer_in_time(ctx: CheckContext) -> None:
    admissions = []
    for what, arguments in worst_captures(ctx.spec, _fresh_capture(ctx)):
        captured = await _in_time(ctx, what, functools.partial(ctx.capture, arguments), arguments)
        if captured is None or WORST_CASES[what] not in WITHIN_BOUNDS:
            continue
        if envelopes.ok(captured) and "candidate_id" in envelopes.value(captured):
            admissions.append((what, envelopes.value(captured)["candidate_id"]))
    query = longest_query(ctx.spec)
    longest = "the longest search query of FTS syntax"
    await _in_time(ctx, longest, functools.partial(ctx.search, query), {"query": query})
    other = ctx.new_identity("bystander")
    for what, candidate_id in admissions:
        await _admitted_beside_a_search(ctx, what, candidate_id, other)


async def _admitted_beside_a_search(
    ctx: CheckContext, what: str, candidate_id: str, other: Identity
) -> None:
    """An admission and another scope's search, sent at once, each judged for time."""
    admit = functools.partial(ctx.admit, candidate_id)
    search = functools.partial(ctx.search, "note", identity=other)
    beside = f"another scope's search sent with the admission of {what}"
    await at_once(
        [
            functools.partial(
                _in_time, ctx, f"the admission of {what}", admit, {"candidate_id": candidate_id}
            ),
            functools.partial(_in_time, ctx, beside, search, {}),
        ]
    )
