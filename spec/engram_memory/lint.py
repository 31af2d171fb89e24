"""``spec lint``: every problem of a spec folder, each with its file, JSON Pointer and message.

First the files must parse and match their meta-schemas (schemas must be valid JSON Schema
2020-12 and use only the spec's known ``x-`` keywords). Only then is consistency checked: ids
unique, every reference resolves (tools, error codes, states, rules, schema ids), limits agree
with the schemas that state them, every error code is reachable from some tool, every state is
reachable from a capture, every example is classified by ``validate_arguments`` as labelled,
every constraint of the output schemas names the rule it enforces, and every ``must`` rule rests
on the seed and quotes it (verbatim, when the seed's text is given).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from referencing.exceptions import Unresolvable

from ..pointers import resolve, to_pointer
from ..problems import Problem, file_problems
from ._arguments import validate_arguments
from ._crossref import CLOCK_KINDS, CROSS_REFERENCE_KINDS
from ._files import PACKAGED_ROOT
from ._model import Rule
from ._outputs import schema_rules, unruled_constraints
from ._shape import walk_subschemas
from ._spec import Spec

LIMIT_KEYWORDS = {
    "bytes": {"min": "x-minBytes", "max": "x-maxBytes"},
    "items": {"min": "minItems", "max": "maxItems"},
    "integer": {"min": "minimum", "max": "maximum", "default": "default"},
}


#: How a quote joins passages of the seed that are not next to each other.
QUOTE_GAP = " … "
ENVELOPE_BRANCHES = ("Success", "Failure")


def iter_problems(root: Path = PACKAGED_ROOT, seed_text: str | None = None) -> Iterator[Problem]:
    """Every problem of the spec in ``root``, lazily, file problems first. With ``seed_text``
    (the seed's Spanish text), every rule's quote must be found in it."""
    problems, spec = file_problems(Spec, root)
    if problems:
        yield from problems
        return
    consistency = [
        *_contract_problems(spec),
        *_error_problems(spec),
        *_lifecycle_problems(spec),
        *_rule_problems(spec),
        *_schema_rule_problems(spec),
        *_output_rule_problems(spec),
        *_quote_problems(spec, seed_text),
    ]
    yield from consistency
    if not consistency:  # examples are classified only against a consistent spec
        yield from _example_problems(spec)


def _contract_problems(spec: Spec) -> Iterator[Problem]:
    file = "contract.json"
    names = [tool["name"] for tool in spec.contract["tools"]]
    for index, name in enumerate(names):
        if names.index(name) != index:
            yield Problem(file, f"/tools/{index}/name", f"tool {name!r} is listed twice")
    for index, tool in enumerate(spec.contract["tools"]):
        for key in ("input_schema", "output_schema"):
            yield from _resolvable(spec, file, f"/tools/{index}/{key}", tool[key])
    for key in ("envelope_schema", "binding_schema"):
        yield from _resolvable(spec, file, f"/{key}", spec.contract[key])
    for index, limit in enumerate(spec.limits):
        for at_index, location in enumerate(limit.at):
            where = f"/limits/{index}/at/{at_index}"
            try:
                subschema = spec.registry.resolver().lookup(location).contents
            except Unresolvable:
                yield Problem(file, where, f"{location} does not resolve to a schema location")
                continue
            for field, keyword in LIMIT_KEYWORDS.get(limit.unit, {}).items():
                expected = getattr(limit, field)
                if expected is not None and subschema.get(keyword) != expected:
                    found = subschema.get(keyword)
                    message = f"limit {limit.name}: {keyword} is {found!r} there, not {expected!r}"
                    yield Problem(file, where, message)
    for keyword, rule in spec.contract["keyword_rules"].items():
        if rule not in spec.rules:
            yield Problem(file, f"/keyword_rules/{keyword}", f"rule {rule} does not exist")


def _resolvable(spec: Spec, file: str, pointer: str, schema_id: str) -> Iterator[Problem]:
    try:
        spec.schema(schema_id)
    except Unresolvable:
        yield Problem(file, pointer, f"no schema has the $id {schema_id!r}")


def _unknown_tools(file: str, pointer: str, tools: tuple[str, ...], spec: Spec):
    for index, tool in enumerate(tools):
        if tool not in spec.tools:
            yield Problem(file, f"{pointer}/{index}", f"tool {tool!r} is not in contract.json")


def _error_problems(spec: Spec) -> Iterator[Problem]:
    file = "errors.json"
    codes = [item["code"] for item in spec.documents.catalogue(file)["codes"]]
    for index, code in enumerate(codes):
        if codes.index(code) != index:
            yield Problem(file, f"/codes/{index}/code", f"error code {code} is listed twice")
    for index, error in enumerate(spec.errors.values()):
        if error.action not in spec.actions:
            yield Problem(file, f"/codes/{index}/action", f"action {error.action!r} is not defined")
        yield from _unknown_tools(file, f"/codes/{index}/tools", error.tools, spec)


def _lifecycle_problems(spec: Spec) -> Iterator[Problem]:
    file = "lifecycle.json"
    for index, transition in enumerate(spec.transitions):
        where = f"/transitions/{index}"
        for key, state in (("from", transition.from_state), ("to", transition.to_state)):
            if state is not None and state not in spec.states:
                yield Problem(file, f"{where}/{key}", f"state {state!r} is not defined")
        if transition.tool is not None and transition.tool not in spec.tools:
            yield Problem(
                file, f"{where}/tool", f"tool {transition.tool!r} is not in contract.json"
            )
    outcomes = spec.documents.catalogue(file)["non_transition_outcomes"]
    for index, outcome in enumerate(outcomes):
        if outcome["state_after"] not in spec.states:
            message = f"state {outcome['state_after']!r} is not defined"
            yield Problem(file, f"/non_transition_outcomes/{index}/state_after", message)
        yield from _unknown_tools(
            file, f"/non_transition_outcomes/{index}", (outcome["tool"],), spec
        )
    reached = {t.to_state for t in spec.transitions if t.from_state is None}
    while True:
        more = {t.to_state for t in spec.transitions if t.from_state in reached} - reached
        if not more:
            break
        reached |= more
    for index, state in enumerate(spec.states):
        if state not in reached:
            yield Problem(
                file, f"/states/{index}", f"state {state!r} is unreachable from a capture"
            )


def _rule_problems(spec: Spec) -> Iterator[Problem]:
    file = "rules.json"
    items = spec.documents.catalogue(file)["rules"]
    ids = [item["id"] for item in items]
    for index, rule in enumerate(Rule.from_dict(item) for item in items):
        where = f"/rules/{index}"
        if ids.index(rule.id) != index:
            yield Problem(file, f"{where}/id", f"rule id {rule.id} is used twice")
        if not rule.id.startswith(rule.family + "-"):
            yield Problem(file, f"{where}/family", f"family {rule.family} does not match {rule.id}")
        if rule.family not in spec.families:
            yield Problem(file, f"{where}/family", f"family {rule.family} is not in families")
        yield from _unknown_tools(file, f"{where}/tools", rule.tools, spec)
        if rule.error_code is not None:
            error = spec.errors.get(rule.error_code)
            if error is None:
                yield Problem(
                    file, f"{where}/error_code", f"{rule.error_code} is not in errors.json"
                )
            else:
                for tool in sorted(set(rule.tools) - set(error.tools)):
                    message = (
                        f"{tool} answers {rule.error_code} here, but errors.json says it never does"
                    )
                    yield Problem(file, f"{where}/tools", message)
        if rule.protocol_error is not None and rule.protocol_error not in spec.protocol_errors:
            yield Problem(
                file, f"{where}/protocol_error", f"{rule.protocol_error} is not a protocol error"
            )


def _schema_rule_problems(spec: Spec) -> Iterator[Problem]:
    """Rule ids and check kinds named inside the schemas must exist."""
    for path, schema in spec.documents.schemas().items():
        for location, node in walk_subschemas(schema):
            for keyword, rule in node.get("x-rules", {}).items():
                if rule not in spec.rules:
                    where = to_pointer((*location, "x-rules", keyword))
                    yield Problem(path, where, f"rule {rule} does not exist")
        checks = (("x-crossReferences", CROSS_REFERENCE_KINDS), ("x-clock", CLOCK_KINDS))
        for keyword, kinds in checks:
            for index, entry in enumerate(schema.get(keyword, [])):
                where = f"/{keyword}/{index}"
                if entry["rule"] not in spec.rules:
                    yield Problem(path, f"{where}/rule", f"rule {entry['rule']} does not exist")
                if entry["kind"] not in kinds:
                    yield Problem(
                        path, f"{where}/kind", f"kind {entry['kind']!r} is not known here"
                    )


def _output_rule_problems(spec: Spec) -> Iterator[Problem]:
    """Every constraint of an answer's schema names a rule an answer can break, and a tool's
    output schema names only rules about that tool."""
    envelope = spec.contract["envelope_schema"]
    schemas = [(tool.output_schema, tool.name) for tool in spec.tools.values()]
    schemas += [(f"{envelope}#/$defs/{branch}", None) for branch in ENVELOPE_BRANCHES]
    for schema_id, tool in schemas:
        file = _file_of(spec, schema_id)
        for pointer, rule in unruled_constraints(spec, schema_id):
            problem = "names no rule" if rule is None else f"names {rule}, an argument rule"
            message = f"the constraint at {pointer} of {schema_id} (references inlined) {problem}"
            yield Problem(file, "", message)
        for rule in schema_rules(spec, schema_id):
            if tool is not None and rule in spec.rules and tool not in spec.rules[rule].tools:
                message = f"{schema_id} enforces {rule}, whose tools do not include {tool}"
                yield Problem("rules.json", f"/rules/{_rule_index(spec, rule)}/tools", message)


def _file_of(spec: Spec, schema_id: str) -> str:
    base = schema_id.partition("#")[0]
    return next(p for p, d in spec.documents.schemas().items() if d.get("$id") == base)


def _rule_index(spec: Spec, rule: str) -> int:
    return [item["id"] for item in spec.documents.catalogue("rules.json")["rules"]].index(rule)


def _quote_problems(spec: Spec, seed_text: str | None) -> Iterator[Problem]:
    """A ``must`` rule comes from the seed and quotes it; a quote is the seed's own words."""
    seed = " ".join(seed_text.split()) if seed_text is not None else None
    for index, rule in enumerate(spec.rules.values()):
        where = f"/rules/{index}/source"
        if rule.level == "must" and rule.source_document != "seed":
            yield Problem("rules.json", where, f"{rule.id} is a must rule not sourced to the seed")
        if rule.level == "must" and rule.source_quote is None:
            yield Problem("rules.json", where, f"{rule.id} is a must rule that quotes no seed text")
        if seed is None or rule.source_quote is None:
            continue
        for passage in rule.source_quote.split(QUOTE_GAP):
            if " ".join(passage.split()) not in seed:
                yield Problem("rules.json", f"{where}/quote", f"not in the seed: {passage!r}")


def _example_problems(spec: Spec) -> Iterator[Problem]:
    for path, document in spec.documents.examples().items():
        tool = spec.tools.get(document["tool"])
        if tool is None:
            yield Problem(path, "/tool", f"tool {document['tool']!r} is not in contract.json")
            continue
        if Path(path).stem != tool.short_name:
            yield Problem(
                path, "/tool", f"examples of {tool.name} belong in {tool.short_name}.json"
            )
        names = [item["name"] for part in ("valid", "invalid") for item in document[part]]
        for name in sorted({n for n in names if names.count(n) > 1}):
            yield Problem(path, "", f"example name {name!r} is used twice")
        for part in ("valid", "invalid"):
            for index, item in enumerate(document[part]):
                message = _misclassified(spec, tool.name, item)
                if message:
                    yield Problem(path, f"/{part}/{index}", f"{item['name']}: {message}")


def _misclassified(spec: Spec, tool: str, example: dict[str, Any]) -> str | None:
    """Why ``validate_arguments`` disagrees with an example's label, or None."""
    arguments = example["arguments"]
    verdict = validate_arguments(spec, tool, arguments)
    if "rule" not in example:
        return (
            None
            if verdict.ok
            else f"labelled valid, but {verdict.code} {verdict.rule} at {verdict.pointer!r}"
        )
    if example["rule"] not in spec.rules:
        return f"rule {example['rule']} does not exist"
    seen = (verdict.code, verdict.rule, verdict.pointer)
    wanted = (example["code"], example["rule"], example["pointer"])
    if seen != wanted:
        return f"labelled {wanted}, but validate_arguments answers {seen}"
    clock_free = validate_arguments(spec, tool, arguments, clock=None)
    if example.get("clock_dependent", False) != clock_free.ok:
        return "clock_dependent does not match: the example fails " + (
            "only against the clock" if clock_free.ok else "without any clock"
        )
    if _purpose_answers_first(spec, tool, example) != ("answered_first_by" in example):
        return (
            "answered_first_by must be given exactly when the offending value is a purpose_ref"
            " string: a server refuses it with -32603 before checking the schema"
        )
    return None


def _purpose_answers_first(spec: Spec, tool: str, example: dict[str, Any]) -> bool:
    """Whether the purpose check (-32603) fails before the schema check would."""
    purpose = spec.tools[tool].purpose_argument
    if purpose is None or example["pointer"] != purpose:
        return False
    try:
        return isinstance(resolve(example["arguments"], purpose), str)
    except LookupError:
        return False
