"""Arguments a tool's own published schema refuses are refused (ERR-005).

For each listed tool the check starts from a call the kit knows valid (``valid_calls``: its
arguments under the names the tool's ``inputSchema`` publishes, on a memory and a project the
check made itself) and breaks it by one condition at a time (``broken_calls``): each required
property left out; each required string emptied where the schema gives it a ``minLength``; each
published property given a value of a JSON type its schema does not allow (the project's on a
valid call naming no session of it: ``project_bases``). jsonschema's 2020-12
validator decides, against the server's own schema, that the valid call is valid and each broken
one is not, so a schema written with ``anyOf`` or without types makes fewer cases, never a false
one; a tool whose schema refuses the kit's valid call, or that has none, is left out.

Every broken call must be refused: an ``isError`` result or a JSON-RPC error (which of the two
is ERR-001's business). Each is a case of its own (``BaseContext.case``). Seed 003 names no
refusal, so ERR-005 is a profile rule: the server's published schema and MCP's "servers MUST
validate all tool inputs" back it. The wrong value of an integer is the string spelling it (the
id of the check's own memory, so that a server that coerces touches nothing of another check's),
and that of a numeral string the integer it spells: the check's session id is a numeral where
the server takes the kit's, so that ``mem_session_end`` of that session with its id as a number
breaks only the id's type (a server that reads 42 as "42" ends the very session the valid call
ends, where another number would name no session and be refused for that).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from ..arguments import NotPublished, published_call, published_name
from ..facts import MemoryId
from .context import MemContext
from .refusing import other_types, refused
from .registry import check
from .steps import START, Project, fresh_project, save_arguments, saved_memory, what_why

RULE = "ERR-005"
#: What the valid call's session id gets to name a session not started yet.
ANOTHER_SESSION = "another"


def learnings(token: str) -> str:
    """Free text with one learning, for ``mem_capture_passive``."""
    return f"## Key Learnings:\n1. ERR-005 captures this learning about {token} once"


def valid_calls(project: Project, token: str, memory: MemoryId) -> dict[str, dict[str, Any]]:
    """A call of each tool, under the kit's argument names, that a server takes: ``memory`` is
    the check's own memory of ``project``. Not mem_judge: the seed's form needs two memories,
    and upstream's a judgment_id only its save answers (the JUDGE checks make both)."""
    content = what_why(token, "a memory of ERR-005")
    return {
        "mem_save": save_arguments(project, f"Memory {token} again", content),
        "mem_search": {"query": token, "project": project.name},
        "mem_context": {"project": project.name},
        "mem_suggest_topic_key": {"title": f"Memory {token}", "content": content},
        "mem_update": {"id": memory, "title": f"Memory {token} updated"},
        "mem_get_observation": {"id": memory},
        "mem_timeline": {"observation_id": memory},
        "mem_delete": {"id": memory},
        START: {"project": project.name, "id": project.session},
        "mem_session_summary": {
            "content": f"## Goal\nERR-005 {token}",
            "project": project.name,
            "session_id": project.session,
        },
        "mem_capture_passive": {
            "content": learnings(token),
            "project": project.name,
            "session_id": project.session,
        },
        "mem_save_prompt": {
            "content": f"ERR-005 prompt {token}",
            "project": project.name,
            "session_id": project.session,
        },
        "mem_session_end": {"id": project.session, "project": project.name},
        "mem_current_project": {},
    }


def wrong_values(schema: Any, given: Any) -> tuple[Any, ...]:
    """Values of a JSON type a property's ``schema`` does not allow; for an integer the kit gave
    (``given``), its spelling as a string stands for the other types' stand-in, and for a
    numeral string the kit gave, the integer it spells."""
    declared = schema.get("type") if isinstance(schema, dict) else None
    values = other_types(declared)
    if isinstance(given, int) and not isinstance(given, bool):
        values = tuple(str(given) if isinstance(value, str) else value for value in values)
    if isinstance(given, str) and is_numeral(given):
        values = tuple(int(given) if _is_integer(value) else value for value in values)
    return values


def is_numeral(text: str) -> bool:
    """Whether ``text`` is the decimal spelling of an integer (no sign, no leading zero)."""
    return text.isascii() and text.isdigit() and str(int(text)) == text


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def numeral(token: str) -> str:
    """A numeral string made from ``token``: 48 bits of its digest, so unique as it is, and
    exact as a JSON number in every language."""
    return str(int.from_bytes(hashlib.sha256(token.encode()).digest()[:6], "big"))


def without_its_session(tool: str, kit: dict[str, Any]) -> dict[str, Any]:
    """A valid call of ``tool`` under the kit's names (``valid_calls``) naming no session of
    its project: without its session_id, and for the call that starts a session, one not
    started yet."""
    if tool == START:
        return kit | {"id": f"{kit['id']}-{ANOTHER_SESSION}"}
    return {name: value for name, value in kit.items() if name != "session_id"}


def project_bases(
    tool: str, schema: Mapping[str, Any], kit: dict[str, Any], valid: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """The valid call the project's wrong-type cases are made on, by its published name, where
    it is not ``valid`` (the published ``kit``): ``without_its_session``, when the schema takes
    it. A session belongs to a project: made on a call naming the check's session, the case
    would be refused by a server that reads the project it cannot take as absent, or as
    another project, for naming a session of another project, not for the project's type."""
    properties = schema.get("properties")
    name = published_name(tool, "project", properties if isinstance(properties, Mapping) else {})
    if name is None:
        return {}
    try:
        free = published_call(tool, schema, without_its_session(tool, kit))
    except NotPublished:
        return {}
    if free == valid or not Draft202012Validator(schema).is_valid(free):
        return {}
    return {name: free}


def broken_calls(
    schema: Mapping[str, Any],
    valid: dict[str, Any],
    bases: Mapping[str, dict[str, Any]] | None = None,
) -> Iterator[tuple[str, dict]]:
    """``valid`` broken by one condition at a time, each with what breaks it: each required
    property left out, each required string emptied below its ``minLength``, each property of a
    type its schema does not allow (made on ``bases``' call for that property where it names
    one, else on ``valid``)."""
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = schema.get("required")
    required = (
        [name for name in required if isinstance(name, str)] if isinstance(required, list) else []
    )
    for name in required:
        yield f"without its required {name}", {k: v for k, v in valid.items() if k != name}
        spec = properties.get(name)
        shortest = spec.get("minLength") if isinstance(spec, dict) else None
        if isinstance(shortest, int) and shortest > 0:
            yield f"with its required {name} empty", valid | {name: ""}
    for name, spec in properties.items():
        base = (bases or {}).get(name, valid)
        for value in wrong_values(spec, base.get(name)):
            yield f"with {name} of another JSON type", base | {name: value}


@check(rules=(RULE,))
async def schema_refused_arguments_are_refused(ctx: MemContext) -> None:
    project = await fresh_project(ctx, "errschema", numeral(ctx.unique("errsession")))
    token = ctx.unique("errschema")
    memory = await saved_memory(ctx, project, token)
    listed = await ctx.listed()
    sent = 0
    for tool, kit in valid_calls(project, token, memory).items():
        if tool not in listed:
            ctx.not_applicable(RULE, f"{tool}: not listed")
            continue
        schema = await ctx.input_schema(tool)
        try:
            valid = published_call(tool, schema, kit)
            validator = Draft202012Validator(schema)
            if not validator.is_valid(valid):
                ctx.not_applicable(RULE, f"{tool}: its inputSchema refuses the kit's valid call")
                continue
            bases = project_bases(tool, schema, kit, valid)
        except (NotPublished, SchemaError) as unusable:
            ctx.not_applicable(RULE, f"{tool}: no valid call under its inputSchema ({unusable})")
            continue
        for breakage, arguments in broken_calls(schema, valid, bases):
            if validator.is_valid(arguments):
                continue
            sent += 1
            async with ctx.case((RULE,), f"{tool}({arguments})"):
                answer = await ctx.call(tool, arguments, as_given=True)
                ctx.expect(
                    RULE,
                    refused(answer),
                    expected=f"{tool} {breakage} ({arguments}), which its inputSchema refuses, "
                    "is refused: isError or a JSON-RPC error",
                    observed=answer,
                )
    if not sent:
        ctx.undecided("no published inputSchema refuses any argument object the check can make")
