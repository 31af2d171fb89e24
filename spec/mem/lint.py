"""``spec lint`` for the mem contract: every problem of a spec folder, each with its file, JSON
Pointer and message.

First the files must parse and match their meta-schemas (the meta-schemas and every tool's input
schema must be valid JSON Schema 2020-12). Only then is consistency checked: each tool file is
named for its version and listed in contract.json; a line's tools are unique, require only
properties they have, and name only evidence for items they hold; rule ids are unique and match
their declared family; every family has a rule; rules name known tools and arguments; levels
agree with sources (a ``must`` rule rests on the seed and quotes it, a seed-sourced ``should``
rule names upstream's divergence); every passage of every quote lies in a statement of
seed.json; and every statement of seed 003 has a rule (the trace). With the seed's text, every
statement must be the seed's own words.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..pointers import resolve
from ..problems import Problem, file_problems
from ._files import PACKAGED_ROOT
from ._model import Rule, normalized
from ._spec import MemSpec


def lint(root: Path | str = PACKAGED_ROOT, seed_text: str | None = None) -> Iterator[Problem]:
    """Every problem of the mem spec in ``root``, lazily, file problems first. With
    ``seed_text`` (seed 003's Spanish text), every statement of seed.json must be in it."""
    root = Path(root)
    problems, spec = file_problems(MemSpec, root)
    if problems:
        yield from problems
        return
    yield from _line_problems(spec)
    yield from _rule_problems(spec)
    yield from _level_problems(spec)
    yield from _trace_problems(spec)
    yield from _seed_text_problems(spec, seed_text)


def _line_problems(spec: MemSpec) -> Iterator[Problem]:
    listed = spec.contract["lines"]
    files = spec.documents.lines()
    named = {Path(path).name for path in files}
    for path, document in files.items():
        if Path(path).name != f"{document['version']}.json":
            message = f"the line {document['version']} belongs in tools/{document['version']}.json"
            yield Problem(path, "/version", message)
        if document["version"] not in listed:
            yield Problem(path, "/version", f"{document['version']} is not in contract.json lines")
        yield from _tools_of_line(path, document)
    for index, version in enumerate(listed):
        if f"{version}.json" not in named:
            yield Problem("contract.json", f"/lines/{index}", f"no file tools/{version}.json")
    for index, name in enumerate(spec.contract["seed_tools"]):
        if name not in spec.tools:
            message = f"tool {name!r} is in no version line"
            yield Problem("contract.json", f"/seed_tools/{index}", message)


def _tools_of_line(path: str, document: dict) -> Iterator[Problem]:
    names = [tool["name"] for tool in document["tools"]]
    exact = document["source"]["evidence"] == "exact"
    for index, tool in enumerate(document["tools"]):
        where = f"/tools/{index}"
        if names.index(tool["name"]) != index:
            yield Problem(path, f"{where}/name", f"tool {tool['name']!r} is listed twice")
        properties = tool["inputSchema"]["properties"]
        for at, name in enumerate(tool["inputSchema"]["required"]):
            if name not in properties:
                message = f"{name!r} is required but is no property"
                yield Problem(path, f"{where}/inputSchema/required/{at}", message)
        for pointer, item in tool.get("evidence", {}).items():
            place = f"{where}/evidence/{pointer.replace('~', '~0').replace('/', '~1')}"
            try:
                resolve(tool, pointer)
            except LookupError:
                yield Problem(path, place, f"{pointer!r} names nothing in the tool")
            if exact and item["evidence"] == "reconstructed":
                yield Problem(path, place, "an exact line holds a reconstructed item")


def _unknown_tools(spec: MemSpec, where: str, names: tuple[str, ...]) -> Iterator[Problem]:
    for index, name in enumerate(names):
        if name not in spec.tools:
            yield Problem("rules.json", f"{where}/{index}", f"tool {name!r} is in no version line")


def _rule_problems(spec: MemSpec) -> Iterator[Problem]:
    items = spec.documents.catalogue("rules.json")["rules"]
    ids = [item["id"] for item in items]
    for index, rule in enumerate(Rule.from_dict(item) for item in items):
        where = f"/rules/{index}"
        if ids.index(rule.id) != index:
            yield Problem("rules.json", f"{where}/id", f"rule id {rule.id} is used twice")
        if not rule.id.startswith(rule.family + "-"):
            message = f"family {rule.family} does not match {rule.id}"
            yield Problem("rules.json", f"{where}/family", message)
        if rule.family not in spec.families:
            message = f"family {rule.family} is not in families"
            yield Problem("rules.json", f"{where}/family", message)
        yield from _unknown_tools(spec, f"{where}/tools", rule.tools)
        for tool, arguments in rule.requires.items():
            place = f"{where}/requires/{tool}"
            if tool not in rule.tools:
                yield Problem(
                    "rules.json", place, f"{tool} is required but not in the rule's tools"
                )
                continue
            published = {
                name
                for line in spec.lines.values()
                if tool in line.tools
                for name in line.tools[tool].properties
            }
            for at, argument in enumerate(arguments):
                if argument not in published:
                    message = f"no version line gives {tool} an argument {argument!r}"
                    yield Problem("rules.json", f"{place}/{at}", message)
    used = {rule.family for rule in spec.rules.values()}
    for family in spec.families:
        if family not in used:
            yield Problem("rules.json", f"/families/{family}", f"family {family} has no rule")


def _level_problems(spec: MemSpec) -> Iterator[Problem]:
    """A must rule is a seed statement upstream honours; a seed statement upstream contradicts
    stands at should and names the divergence; a divergence belongs to nothing else."""
    for index, rule in enumerate(spec.rules.values()):
        where = f"/rules/{index}"
        if rule.level == "must" and rule.source_document != "seed":
            yield Problem(
                "rules.json", f"{where}/source", f"{rule.id} is a must rule not sourced to the seed"
            )
        if rule.level == "must" and rule.divergence is not None:
            yield Problem(
                "rules.json", f"{where}/divergence", f"{rule.id} is a must rule with a divergence"
            )
        seed_should = rule.level == "should" and rule.source_document == "seed"
        if seed_should and rule.divergence is None:
            message = f"{rule.id} rests on the seed at should, but names no upstream divergence"
            yield Problem("rules.json", where, message)
        if rule.divergence is not None and not seed_should:
            message = f"{rule.id} names a divergence but is no seed-sourced should rule"
            yield Problem("rules.json", f"{where}/divergence", message)


def _trace_problems(spec: MemSpec) -> Iterator[Problem]:
    ids = [statement.id for statement in spec.statements]
    for index, statement_id in enumerate(ids):
        if ids.index(statement_id) != index:
            message = f"statement id {statement_id} is used twice"
            yield Problem("seed.json", f"/statements/{index}/id", message)
    for index, rule in enumerate(spec.rules.values()):
        for passage in rule.passages:
            if not any(statement.holds(passage) for statement in spec.statements):
                message = f"{rule.id} quotes words in no statement of seed.json: {passage!r}"
                yield Problem("rules.json", f"/rules/{index}/source/quote", message)
    trace = spec.trace()
    for index, statement in enumerate(spec.statements):
        if not trace[statement.id]:
            message = f"statement {statement.id} of the seed has no rule"
            yield Problem("seed.json", f"/statements/{index}", message)


def _seed_text_problems(spec: MemSpec, seed_text: str | None) -> Iterator[Problem]:
    if seed_text is None:
        return
    seed = normalized(seed_text)
    for index, statement in enumerate(spec.statements):
        if normalized(statement.text) not in seed:
            message = f"statement {statement.id} is not in the seed's text"
            yield Problem("seed.json", f"/statements/{index}/text", message)
