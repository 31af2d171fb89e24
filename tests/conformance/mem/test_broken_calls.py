"""Every negative case of the mem checks that is built from a valid call breaks exactly one thing
(issue 29): ERR-005's broken calls (``refusals.broken_calls``) and ERR-004's calls without an
id or of an id no memory has (``errors.WITHOUT_ID``). Each differs from a valid call of its tool
(``refusals.valid_calls``, under the names the reference publishes; for the project, that call
naming no session of it, ``refusals.project_bases``) in one argument; the reference refuses it,
and accepts it once that argument is put back, and once it is left out where the schema does
not require it: a server that takes an argument of the wrong type as absent is then refused for
nothing else. The project's cases were made on a call naming the check's session, which a
server reading the project as absent (or as "42") refused for naming another project's session.

Not built here: ERR-001's and ERR-003's calls are no cases of a condition (they provoke any
failure and judge only its form, an ``isError`` result, whatever made the server refuse); the
refusals of JUDGE-002 (one id, an id no memory has), JUDGE-005 (an unknown judgment_id, a
relation that is none), PASS-003 (an empty content, none) and DEL (a delete of an unknown or
soft-deleted id) each change one argument of a call their check makes valid on the server's
state, beside that control: the state is built by calls. The rest of the mem checks send calls
a server must take and judge what it did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engram_conformance.conformance.mem.arguments import published_call
from engram_conformance.conformance.mem.checks.errors import WITHOUT_ID
from engram_conformance.conformance.mem.checks.refusals import (
    broken_calls,
    numeral,
    project_bases,
    valid_calls,
)
from engram_conformance.conformance.mem.checks.steps import Project
from engram_conformance.reference_impl.mem.catalogue import TOOLS
from engram_conformance.reference_impl.mem.project import current_project
from engram_conformance.reference_impl.mem.service import MemService
from jsonschema import Draft202012Validator

from .inprocess import DEDUPE_WINDOW, PROJECT

#: Its session id is a numeral, as the check's is: a session id of another JSON type is the
#: number it spells, which a server that reads 42 as "42" takes for the very same session.
PLACE = Project("broken-calls", numeral("broken-calls"))
TOKEN = "brokencallstoken"


class Reference:
    """The mem reference in this process, with a session of ``PLACE`` and one memory."""

    def __init__(self, state_dir: Path) -> None:
        self.service = MemService(state_dir, current_project(PROJECT, state_dir), DEDUPE_WINDOW)
        assert self.accepts("mem_session_start", {"id": PLACE.session, "project": PLACE.name})
        saved = {"title": "A memory", "content": "of the cases", "project": PLACE.name}
        assert self.accepts("mem_save", saved | {"type": "discovery"})
        self.memory = 1  # the first memory of a fresh store
        assert self.accepts("mem_get_observation", {"id": self.memory})

    def accepts(self, tool: str, arguments: dict[str, Any]) -> bool:
        return not self.service.call(tool, arguments).is_error

    def valid(self, tool: str) -> dict[str, Any]:
        kit = valid_calls(PLACE, TOKEN, self.memory)[tool]
        return published_call(tool, TOOLS[tool].input_schema, kit)


def _broken() -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """ERR-005's cases on the reference's published schemas, as the check selects them (those
    the schema refuses), on a valid call whose memory id is 1, each with the valid call it was
    made from."""
    cases = []
    for tool, kit in valid_calls(PLACE, TOKEN, 1).items():
        schema = TOOLS[tool].input_schema
        valid = published_call(tool, schema, kit)
        validator = Draft202012Validator(schema)
        assert validator.is_valid(valid), tool
        bases = project_bases(tool, schema, kit, valid)
        for breakage, arguments in broken_calls(schema, valid, bases):
            if not validator.is_valid(arguments):
                base = bases.get(breakage.split()[1], valid)
                cases.append((tool, breakage, arguments, base))
    return cases


BROKEN = _broken()


def _one_place(case: dict[str, Any], valid: dict[str, Any]) -> str:
    """The one argument ``case`` differs in from ``valid`` (by JSON type too)."""
    differ = [
        name
        for name in case.keys() | valid.keys()
        if name not in case
        or name not in valid
        or type(case[name]) is not type(valid[name])
        or case[name] != valid[name]
    ]
    assert len(differ) == 1, f"the case differs from its valid call in {differ}"
    return differ[0]


def _put_back(case: dict[str, Any], valid: dict[str, Any], name: str) -> dict[str, Any]:
    restored = {key: value for key, value in case.items() if key != name}
    return restored | ({name: valid[name]} if name in valid else {})


#: Cases whose broken argument, left out, leaves a call the reference refuses for another
#: reason: a server that takes such an argument as absent is refused anyway.
LEFT_OUT_REFUSED = {
    ("mem_update", "title"): "an update of nothing: the call's one field to update is its title",
}


@pytest.mark.parametrize(
    ("tool", "breakage", "arguments", "valid"),
    BROKEN,
    ids=[f"{t} {b}" for t, b, _, _ in BROKEN],
)
def test_each_broken_call_breaks_one_argument(
    tmp_path: Path, tool: str, breakage: str, arguments: dict[str, Any], valid: dict[str, Any]
) -> None:
    """The case differs from the valid call it was made from (``Reference.valid``, or the
    project's free of its session) in one argument; refused, it is accepted with that argument
    put back, and with it left out where the schema does not require it (a server that takes
    an argument of the wrong type as absent is then refused for nothing else)."""
    reference = Reference(tmp_path / "put-back")
    name = _one_place(arguments, valid)
    assert not reference.accepts(tool, arguments), f"{tool} {breakage} is refused"
    assert reference.accepts(tool, _put_back(arguments, valid, name)), f"{name} put back"
    required = TOOLS[tool].input_schema.get("required", [])
    if name not in required and (tool, name) not in LEFT_OUT_REFUSED:
        left_out = {key: value for key, value in arguments.items() if key != name}
        assert Reference(tmp_path / "left-out").accepts(tool, left_out), f"{name} left out"


def test_every_published_tool_has_broken_calls() -> None:
    assert {tool for tool, _, _, _ in BROKEN} == {
        tool for tool in valid_calls(PLACE, TOKEN, 1) if TOOLS[tool].input_schema.get("properties")
    }


@pytest.mark.parametrize(("tool", "arguments"), WITHOUT_ID, ids=[str(c) for c in WITHOUT_ID])
def test_each_call_without_a_known_id_breaks_only_its_id(
    tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    """ERR-004: the case with the id of a memory put back (that of the tool's valid call) is
    accepted by the reference, which refuses the case."""
    reference = Reference(tmp_path)
    name = {"mem_timeline": "observation_id"}.get(tool, "id")
    restored = {**arguments, name: reference.valid(tool)[name]}
    assert _one_place(arguments, restored) == name
    assert not reference.accepts(tool, arguments)
    assert reference.accepts(tool, restored)


def test_a_session_id_of_another_type_is_the_number_it_spells() -> None:
    """mem_session_end's id of another JSON type names the valid call's very session: read as
    a string, it ends that session (the reference accepts it put back, above)."""
    sent = [
        arguments["id"]
        for tool, breakage, arguments, _ in BROKEN
        if tool == "mem_session_end" and breakage == "with id of another JSON type"
    ]
    assert PLACE.session is not None
    assert sent == [int(PLACE.session)]
