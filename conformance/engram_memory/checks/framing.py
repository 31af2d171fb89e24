"""HOST-025: malformed JSON-RPC gets an answer, and the server keeps serving.

Sent over the byte-exact path (the session's raw channel, stdio or HTTP), since no client
writes such messages: ids that are a fraction, a boolean, an object or an array; repeated keys
in the envelope and in an argument object; an argument nested 10,000 deep; a 5,000-digit number
in an argument. A bad id must be answered -32600 with id null (JSON-RPC cannot answer under an
id it cannot use); the others under the request's id (a result or an error) or -32600, and a
repeated argument refused, since a server that takes one of the two silently acts on a value
the client may not have meant (I-JSON, RFC 7493, forbids repeated names). After
each, an ordinary search over the same channel must still be answered. A silent server does not
hang the check: each message is a ``Probe``, answered within the descriptor's call timeout or
not at all. Over stdio a ping follows each; once the ping is answered first the check goes on
and the probe's answer is still taken until its time-out ends, so the waits for every message
left unanswered overlap (one time-out in all, not one each) and a server that answers late but
in time is judged on its answer. A target in process has no text to carry them: the rule is not
applicable there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engram_conformance.spec.engram_memory.tool_names import SEARCH

from ...exceptions import ServerFault
from ...targets.eras import ENVELOPE_KEYS
from ...targets.json_text import json_text
from ...targets.raw_channel import Probe, RawChannel
from .context import CheckContext
from .registry import check

RULE = "HOST-025"
INVALID_REQUEST = -32600
_DEPTH = 10_000
_DIGITS = 5_000


@dataclass(frozen=True)
class Malformed:
    """One message: what it is, and its text for a request id and the ``_meta`` of a call."""

    what: str
    text: Callable[[int, dict[str, Any], str], str]
    #: the method the text asks for, and the tool it names (the new era's HTTP headers say so)
    method: str = "tools/list"
    name: str | None = None
    bad_id: bool = False
    #: whether a success is wrong too: which of two repeated arguments would it have taken?
    refused: bool = False

    @property
    def wanted(self) -> str:
        if self.bad_id:
            return "-32600 with id null"
        if self.refused:
            return "refused under its id (an error), or -32600: repeated names are not I-JSON"
        return "an answer under its id, or -32600"


def _call(request_id: int, meta: dict[str, Any], arguments: str) -> str:
    """A search's text with ``arguments`` as JSON text (written as is)."""
    head = json_text({"jsonrpc": "2.0", "id": request_id, "method": "tools/call"})[:-1]
    params = json_text({"name": SEARCH, "_meta": meta})[:-1]
    return f'{head},"params":{params},"arguments":{arguments}}}}}'


def _arguments(purpose: str, extra: str) -> str:
    """Search arguments with ``extra`` members (JSON text) after the valid ones."""
    return json_text({"query": "malformed", "purpose_ref": purpose})[:-1] + f",{extra}}}"


def _listing(request_id: Any, meta: dict[str, Any], extra: str = "") -> str:
    """A tools/list's text; its params carry the era's envelope keys of ``meta`` and no host
    context (no envelope: no params)."""
    envelope = {key: value for key, value in meta.items() if key in ENVELOPE_KEYS}
    params = f',"params":{json_text({"_meta": envelope})}' if envelope else ""
    return f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/list"{params}{extra}}}'


def _listing_with_id(text: str) -> Callable[[int, dict[str, Any], str], str]:
    """A tools/list's text whose id is ``text``, whatever id the check numbers it."""
    return lambda _i, meta, _p: _listing(text, meta)


def _cases() -> list[Malformed]:
    bad_ids = [
        Malformed(
            f"a tools/list whose id is {text}",
            _listing_with_id(text),
            bad_id=True,
        )
        for text in ("7.5", "true", "{}", "[]")
    ]
    deep = "[" * _DEPTH + "]" * _DEPTH
    return [
        *bad_ids,
        Malformed(
            "a tools/list with a repeated key in the envelope",
            lambda i, m, _p: _listing(i, m, ',"method":"tools/list"'),
        ),
        Malformed(
            "a search with a repeated argument",
            lambda i, m, p: _call(i, m, _arguments(p, '"query":"again"')),
            "tools/call",
            SEARCH,
            refused=True,
        ),
        Malformed(
            "a search with an argument nested 10,000 deep",
            lambda i, m, p: _call(i, m, _arguments(p, f'"limit":{deep}')),
            "tools/call",
            SEARCH,
        ),
        Malformed(
            "a search with a 5,000-digit number in an argument",
            lambda i, m, p: _call(i, m, _arguments(p, f'"limit":{"9" * _DIGITS}')),
            "tools/call",
            SEARCH,
        ),
    ]


def _answered(case: Malformed, answer: dict[str, Any]) -> bool:
    """Whether ``answer`` answers ``case`` as HOST-025 asks. The raw channel returns only a
    response under the id sent or an error with a null id."""
    error = answer.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if case.bad_id:
        return code == INVALID_REQUEST and answer.get("id") is None
    if code == INVALID_REQUEST:
        return True
    result = answer.get("result")
    refused = code is not None or (isinstance(result, dict) and result.get("isError") is True)
    return answer.get("id") is not None and (refused or not case.refused)


def _text_of(case: Malformed, meta: dict[str, Any], purpose: str) -> Callable[[int], str]:
    return lambda request_id: case.text(request_id, meta, purpose)


def _judge(ctx: CheckContext, case: Malformed, probe: Probe) -> None:
    ctx.expect(
        RULE,
        probe.answer is not None and _answered(case, probe.answer),
        expected=f"{case.what} is answered: {case.wanted}",
        observed=probe.answer if probe.answer is not None else probe.fault,
    )


@check(rules=(RULE,), tools=(SEARCH,))
async def malformed_json_rpc_is_answered(ctx: CheckContext) -> None:
    """Each malformed message is answered as HOST-025 says, then a search is still answered.
    Its requests are framed in the channel's era: the ``_meta`` and a listing's params carry
    the envelope."""
    channel = await ctx.session.connection.raw_for(ctx.host.claims(ctx.identity, SEARCH))
    if not isinstance(channel, RawChannel):
        ctx.not_applicable(RULE, "a target in process takes objects, not JSON text")
        return
    sent: list[tuple[Malformed, Probe]] = []
    try:
        for case in _cases():
            meta = channel.framed_meta(ctx.host.meta(ctx.host.claims(ctx.identity, SEARCH)))
            text_of = _text_of(case, meta, ctx.identity.purpose_ref)
            probe = await channel.probe(text_of, case.method, case.name, ctx.session.call_timeout_s)
            sent.append((case, probe))
            await _still_serves(ctx, channel, case.what)
    finally:
        await channel.settle([probe for _, probe in sent])
        for case, probe in sent:
            _judge(ctx, case, probe)


async def _still_serves(ctx: CheckContext, channel: RawChannel, after: str) -> None:
    """A search over the same channel is answered; a server that broke fails the rule, and
    the run reconnects (the fault is raised on)."""
    try:
        with ctx.session.over(channel):  # a raw channel calls tools as a client does
            answered = await ctx.search("malformed")
    except ServerFault as fault:
        ctx.expect(
            RULE, False, expected=f"after {after}, a search is answered", observed=str(fault)
        )
        raise
    ctx.expect(RULE, True, expected=f"after {after}, a search is answered", observed=answered)
