"""spec lint: the shipped spec is sound, and every kind of breakage is named precisely."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from engram_conformance.conformance.cli.app import main
from engram_conformance.conformance.targets.json_text import json_text
from engram_conformance.spec.engram_memory import SpecFileError, load
from engram_conformance.spec.engram_memory.lint import Problem, iter_problems


def edit(root: Path, name: str, change: Callable[[Any], None]) -> None:
    """Change a spec file's document; written back as JSON text, an example's infinite number
    as 1e400 (``json.dumps`` would write ``Infinity``, which is no JSON)."""
    path = root / name
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json_text(document), encoding="utf-8")


def test_the_shipped_spec_has_no_problem() -> None:
    assert list(iter_problems()) == []


def test_cli_lint_passes_on_the_shipped_spec() -> None:
    result = CliRunner().invoke(main, ["spec", "lint"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("spec lint: ok")


def test_invalid_json_names_the_file_and_exits_2(spec_copy: Path) -> None:
    (spec_copy / "rules.json").write_text('{"families": {', encoding="utf-8")
    [problem] = iter_problems(spec_copy)
    assert problem.file == "rules.json"
    assert problem.pointer == ""
    assert "not valid JSON" in problem.message
    result = CliRunner().invoke(main, ["spec", "lint", "--spec-dir", str(spec_copy)])
    assert result.exit_code == 2
    assert f"{spec_copy / 'rules.json'}: at '': not valid JSON" in result.output


def test_a_missing_file_is_named(spec_copy: Path) -> None:
    (spec_copy / "errors.json").unlink()
    assert list(iter_problems(spec_copy)) == [Problem("errors.json", "", "file is missing")]


def test_duplicate_keys_are_refused(spec_copy: Path) -> None:
    (spec_copy / "lifecycle.json").write_text('{"states": [], "states": []}', encoding="utf-8")
    [problem] = iter_problems(spec_copy)
    assert (problem.file, problem.message) == (
        "lifecycle.json",
        "cannot be read as JSON: duplicate key 'states'",
    )


def set_in(path: list[Any], value: Any) -> Callable[[Any], None]:
    def change(document: Any) -> None:
        node = document
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return change


SEARCH_SCHEMA = "schemas/tools/search.input.schema.json"
SHAPE_CASES = {
    "rule-level": ("rules.json", ["rules", 3, "level"], "mustt", "is not one of"),
    "error-retriable": ("errors.json", ["codes", 0, "retriable"], "no", "is not of type"),
    "state-kind": ("lifecycle.json", ["states", 0, "kind"], "draft", "is not one of"),
    "tool-confirmation": ("contract.json", ["tools", 0, "confirmation"], "maybe", "is not one of"),
    "schema-type": (
        "schemas/definitions.schema.json",
        ["$defs", "Digest", "type"],
        "strin",
        "is not valid",
    ),
    "vocabulary-value": (
        SEARCH_SCHEMA,
        ["properties", "query", "x-maxBytes"],
        -1,
        "less than the minimum",
    ),
    "example-pointer": (
        "examples/search.json",
        ["invalid", 0, "pointer"],
        "no-slash",
        "does not match",
    ),
}


@pytest.mark.parametrize("case", SHAPE_CASES)
def test_shape_problems_name_file_pointer_and_problem(spec_copy: Path, case: str) -> None:
    file, path, value, fragment = SHAPE_CASES[case]
    pointer = "/" + "/".join(str(part) for part in path)
    edit(spec_copy, file, set_in(path, value))
    problems = list(iter_problems(spec_copy))
    assert [(p.file, p.pointer) for p in problems] == [(file, pointer)]
    assert fragment in problems[0].message
    result = CliRunner().invoke(main, ["spec", "lint", "--spec-dir", str(spec_copy)])
    assert result.exit_code == 2
    assert f"{spec_copy / file}: at '{pointer}': " in result.output
    with pytest.raises(SpecFileError) as raised:
        load(spec_copy)
    assert (str(raised.value.path), raised.value.pointer) == (file, pointer)


def test_an_unknown_x_keyword_is_a_problem(spec_copy: Path) -> None:
    edit(spec_copy, "schemas/definitions.schema.json", set_in(["$defs", "Digest", "x-maxbytes"], 3))
    [problem] = iter_problems(spec_copy)
    assert (problem.file, problem.pointer) == ("schemas/definitions.schema.json", "/$defs/Digest")
    assert "x-maxbytes" in problem.message


def rule_index(root: Path, rule_id: str) -> int:
    rules = json.loads((root / "rules.json").read_text(encoding="utf-8"))["rules"]
    return next(i for i, rule in enumerate(rules) if rule["id"] == rule_id)


def test_consistency_unknown_tool_code_and_duplicate_id(spec_copy: Path) -> None:
    # ENV-004 is named by no schema, so renaming it leaves no dangling x-rules entry
    first, second = rule_index(spec_copy, "ENV-001"), rule_index(spec_copy, "ENV-004")

    def change(document: Any) -> None:
        document["rules"][first]["tools"] = ["engram_memory_purge"]
        document["rules"][second]["id"] = "ENV-001"
        document["rules"][second]["error_code"] = "NOT_A_CODE"

    edit(spec_copy, "rules.json", change)
    problems = {(p.pointer, p.message) for p in iter_problems(spec_copy)}
    assert problems == {
        (f"/rules/{first}/tools/0", "tool 'engram_memory_purge' is not in contract.json"),
        (f"/rules/{second}/id", "rule id ENV-001 is used twice"),
        (f"/rules/{second}/error_code", "NOT_A_CODE is not in errors.json"),
    }


def test_a_rule_claiming_a_code_its_tool_never_answers(spec_copy: Path) -> None:
    index = rule_index(spec_copy, "PAGE-004")
    edit(spec_copy, "rules.json", set_in(["rules", index, "tools"], ["engram_memory_get"]))
    [problem] = iter_problems(spec_copy)
    assert problem.pointer == f"/rules/{index}/tools"
    assert "engram_memory_get answers STALE_PAGE here" in problem.message


def test_a_limit_that_disagrees_with_its_schema(spec_copy: Path) -> None:
    edit(
        spec_copy,
        "schemas/tools/search.input.schema.json",
        set_in(["properties", "query", "x-maxBytes"], 8000),
    )
    [problem] = iter_problems(spec_copy)
    assert (problem.file, problem.pointer) == ("contract.json", "/limits/4/at/0")
    assert problem.message == "limit query: x-maxBytes is 8000 there, not 8192"


def test_x_rules_must_name_an_existing_rule(spec_copy: Path) -> None:
    edit(spec_copy, "schemas/tools/search.input.schema.json",
         set_in(["properties", "limit", "x-rules", "minimum"], "SCHEMA-999"))  # fmt: skip
    problems = list(iter_problems(spec_copy))
    assert len(problems) == 1
    assert problems[0].file == "schemas/tools/search.input.schema.json"
    assert problems[0].pointer == "/properties/limit/x-rules/minimum"
    assert problems[0].message == "rule SCHEMA-999 does not exist"


def test_lifecycle_states_must_exist_and_be_reachable(spec_copy: Path) -> None:
    def change(document: Any) -> None:
        document["transitions"][0]["to"] = "limbo"
        document["states"].append({**document["states"][0], "name": "orphan"})

    edit(spec_copy, "lifecycle.json", change)
    messages = {p.message for p in iter_problems(spec_copy)}
    assert "state 'limbo' is not defined" in messages
    assert "state 'orphan' is unreachable from a capture" in messages


def test_an_error_code_must_be_reachable_from_a_tool(spec_copy: Path) -> None:
    edit(spec_copy, "errors.json", set_in(["codes", 0, "tools"], []))
    [problem] = iter_problems(spec_copy)
    assert (problem.file, problem.pointer) == ("errors.json", "/codes/0/tools")


def test_a_mislabelled_example_is_named(spec_copy: Path) -> None:
    document = json.loads((spec_copy / "examples/search.json").read_text(encoding="utf-8"))
    index = next(i for i, item in enumerate(document["invalid"]) if item["rule"] == "SCHEMA-013")
    edit(spec_copy, "examples/search.json", set_in(["invalid", index, "rule"], "SCHEMA-012"))
    [problem] = iter_problems(spec_copy)
    assert (problem.file, problem.pointer) == ("examples/search.json", f"/invalid/{index}")
    assert "validate_arguments answers" in problem.message


def test_a_valid_example_that_is_not_valid_is_named(spec_copy: Path) -> None:
    edit(spec_copy, "examples/get.json", set_in(["valid", 0, "arguments", "record_id"], "rec_1"))
    [problem] = iter_problems(spec_copy)
    assert (problem.file, problem.pointer) == ("examples/get.json", "/valid/0")
    assert "labelled valid, but INVALID_SCHEMA SCHEMA-019" in problem.message


def test_an_invalid_purpose_string_must_say_the_purpose_check_answers_first(
    spec_copy: Path,
) -> None:
    document = json.loads((spec_copy / "examples/get.json").read_text(encoding="utf-8"))
    index = next(i for i, item in enumerate(document["invalid"]) if "answered_first_by" in item)
    edit(spec_copy, "examples/get.json", lambda d: d["invalid"][index].pop("answered_first_by"))
    [problem] = iter_problems(spec_copy)
    assert (problem.file, problem.pointer) == ("examples/get.json", f"/invalid/{index}")
    assert "answered_first_by" in problem.message


# answers' constraints and the seed's words ------------------------------------------------------
SEED = Path(__file__).resolve().parents[4] / "shared" / "seeds" / "000_234cb3bc426fd963.txt"
OUTPUT_DEFINITIONS = "schemas/output-definitions.schema.json"


def test_an_output_constraint_without_a_rule_is_a_problem(spec_copy: Path) -> None:
    edit(spec_copy, OUTPUT_DEFINITIONS, lambda d: d["$defs"]["Cursor"]["x-rules"].pop("pattern"))
    messages = [p.message for p in iter_problems(spec_copy)]
    assert messages, "a cursor pattern that names no rule went unnoticed"
    assert all("names no rule" in m and "/pattern" in m for m in messages), messages


def test_an_output_constraint_naming_an_argument_rule_is_a_problem(spec_copy: Path) -> None:
    """An answer cannot break SCHEMA-010, the digest form of the digests a caller sends."""
    edit(
        spec_copy,
        OUTPUT_DEFINITIONS,
        set_in(["$defs", "Digest", "x-rules", "pattern"], "SCHEMA-010"),
    )
    messages = {p.message for p in iter_problems(spec_copy)}
    assert any("names SCHEMA-010, an argument rule" in m for m in messages), messages
    assert all("SCHEMA-010" in m for m in messages), messages


def test_an_output_rule_must_concern_the_tool_whose_output_it_judges(spec_copy: Path) -> None:
    index = rule_index(spec_copy, "ENV-014")
    edit(spec_copy, "rules.json", set_in(["rules", index, "tools"], ["engram_memory_search"]))
    problems = list(iter_problems(spec_copy))
    assert {(p.file, p.pointer) for p in problems} == {("rules.json", f"/rules/{index}/tools")}
    assert any("whose tools do not include engram_memory_capture" in p.message for p in problems)


def test_a_must_rule_quotes_the_seed(spec_copy: Path) -> None:
    index = rule_index(spec_copy, "SCOPE-001")
    edit(spec_copy, "rules.json", lambda d: d["rules"][index]["source"].pop("quote"))
    assert list(iter_problems(spec_copy)) == [
        Problem(
            "rules.json",
            f"/rules/{index}/source",
            "SCOPE-001 is a must rule that quotes no seed text",
        )
    ]


def test_a_must_rule_rests_on_the_seed_not_on_design(spec_copy: Path) -> None:
    index = rule_index(spec_copy, "SCOPE-001")
    edit(spec_copy, "rules.json", set_in(["rules", index, "source", "document"], "design"))
    assert list(iter_problems(spec_copy)) == [
        Problem(
            "rules.json",
            f"/rules/{index}/source",
            "SCOPE-001 is a must rule not sourced to the seed",
        )
    ]


def test_a_quote_is_looked_up_in_the_seed_text_given() -> None:
    """Each passage of a quote (joined by ' … ') must be in the text, whitespace aside."""
    spec = load()
    quotes = {rule.id: rule.source_quote for rule in spec.rules.values() if rule.source_quote}
    passages = [p for quote in quotes.values() for p in quote.split(" … ")]
    text = "\n".join(passages)
    assert list(iter_problems(seed_text=text.replace("\n", "  \n "))) == []
    dropped = quotes["SCOPE-001"].split(" … ")[0]
    problems = list(iter_problems(seed_text=text.replace(dropped, "")))
    assert problems and all(p.message == f"not in the seed: {dropped!r}" for p in problems)


@pytest.mark.skipif(not SEED.is_file(), reason=f"the seed text is not at {SEED}")
def test_every_quote_is_the_seeds_own_words() -> None:
    assert list(iter_problems(seed_text=SEED.read_text(encoding="utf-8"))) == []
