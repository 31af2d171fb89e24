"""``mem_judge`` in its two forms: the seed's list of memory ids (``ids``: a verdict on each,
``judge``), and upstream v1.1x's verdict on one pending judgment of a save (``judgment_id`` and
``relation``, ``judgments``). A call gives one form or the other."""

from __future__ import annotations

from . import judgments
from .arguments import ToolError
from .call import Call
from .judge import judge

JUDGE_MOST = 20


def mem_judge(call: Call) -> str:
    given = {name for name in ("ids", "judgment_id") if call.arguments.sent.get(name) is not None}
    if given == {"ids"}:
        return _judge_list(call)
    if given == {"judgment_id"}:
        return _record_verdict(call)
    raise ToolError("give either ids (memories to judge) or judgment_id (a verdict to record)")


def _judge_list(call: Call) -> str:
    """A ``#<id>: <verdict>`` line per memory, then a ``#<a> #<b>: <relation> — <reason>``
    line per pair, in the order of their ids."""
    ids = call.arguments.identifiers("ids")
    if len(ids) < 2:
        raise ToolError("ids: give at least two different memory ids")
    if len(ids) > JUDGE_MOST:
        raise ToolError(f"ids: at most {JUDGE_MOST} memories at once")
    judged = judge([call.live(observation_id) for observation_id in ids])
    lines = [f"Judged {len(ids)} memories ({len(judged.pairs)} pairs):"]
    lines += [f"#{memory_id}: {verdict}" for memory_id, verdict in judged.verdicts.items()]
    lines += [f"#{p.first} #{p.second}: {p.relation} — {p.reason}" for p in judged.pairs]
    return "\n".join(lines)


def _record_verdict(call: Call) -> str:
    arguments = call.arguments
    judgment_id = arguments.text("judgment_id", required=True)
    relation = arguments.text("relation", required=True)
    if relation not in judgments.RELATIONS:
        raise ToolError("relation must be one of " + ", ".join(judgments.RELATIONS))
    confidence = arguments.number("confidence")
    if confidence is not None and not 0 <= confidence <= 1:
        raise ToolError("confidence must be between 0 and 1")
    reason, evidence = (arguments.text(name, bounded=False) for name in ("reason", "evidence"))
    verdict = {
        "relation": relation,
        "reason": reason,
        "evidence": evidence,
        "confidence": confidence,
        # a verdict is recorded in a session of the judged memories' project, never another's
        "session_id": call.given_session(judgments.project_of(call.store, judgment_id)),
    }
    return judgments.record(call.store, judgment_id, verdict)
