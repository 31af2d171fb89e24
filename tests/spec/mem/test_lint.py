"""lint(): the shipped mem spec is sound, and every kind of breakage is named precisely."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from engram_conformance.spec.mem.lint import Problem, lint

from .conftest import seed_text


def edit(root: Path, name: str, change: Callable[[Any], None]) -> None:
    path = root / name
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")


def rule_index(root: Path, rule_id: str) -> int:
    rules = json.loads((root / "rules.json").read_text(encoding="utf-8"))["rules"]
    return next(i for i, rule in enumerate(rules) if rule["id"] == rule_id)


def tool_index(root: Path, version: str, name: str) -> int:
    tools = json.loads((root / f"tools/{version}.json").read_text(encoding="utf-8"))["tools"]
    return next(i for i, tool in enumerate(tools) if tool["name"] == name)


def only(root: Path) -> Problem:
    [problem] = lint(root)
    return problem


def test_the_shipped_spec_has_no_problem() -> None:
    assert list(lint()) == []


@pytest.mark.skipif(seed_text() is None, reason="seed 003 is not beside the repository")
def test_every_statement_and_quote_is_the_seeds_own_words() -> None:
    assert list(lint(seed_text=seed_text())) == []


def _statements_as_text() -> str:
    """The seed's text as the spec keeps it (its statements, verbatim), for a machine that does
    not have seed 003 beside the repository."""
    import engram_conformance.spec.mem as mem

    statements = json.loads((Path(mem.__file__).parent / "seed.json").read_text("utf-8"))
    return "\n\n".join(statement["text"] for statement in statements["statements"])


def test_a_statement_not_in_the_seed_text_is_named() -> None:
    text = seed_text() or _statements_as_text()
    problems = list(lint(seed_text=text.replace("Engram persiste", "Engram olvida")))
    assert problems == [
        Problem("seed.json", "/statements/0/text", "statement S01 is not in the seed's text")
    ]


# files and shapes -------------------------------------------------------------------------------
def test_invalid_json_names_the_file(mem_spec_copy: Path) -> None:
    (mem_spec_copy / "seed.json").write_text('{"statements": [', encoding="utf-8")
    problem = only(mem_spec_copy)
    assert (problem.file, problem.pointer) == ("seed.json", "")
    assert "not valid JSON" in problem.message


def test_a_missing_file_is_named(mem_spec_copy: Path) -> None:
    (mem_spec_copy / "contract.json").unlink()
    assert only(mem_spec_copy) == Problem("contract.json", "", "file is missing")


def test_duplicate_keys_are_refused(mem_spec_copy: Path) -> None:
    (mem_spec_copy / "tools/v1.7.0.json").write_text('{"tools": [], "tools": []}', encoding="utf-8")
    problem = only(mem_spec_copy)
    assert problem.message == "cannot be read as JSON: duplicate key 'tools'"


def test_a_meta_schema_breach_names_file_and_pointer(mem_spec_copy: Path) -> None:
    edit(mem_spec_copy, "rules.json", lambda d: d["rules"][2].update(level="mustt"))
    problem = only(mem_spec_copy)
    assert (problem.file, problem.pointer) == ("rules.json", "/rules/2/level")
    assert "is not one of" in problem.message


def test_an_input_schema_must_be_valid_json_schema(mem_spec_copy: Path) -> None:
    index = tool_index(mem_spec_copy, "v1.20.0", "mem_save")

    def change(document: Any) -> None:
        document["tools"][index]["inputSchema"]["required"] = "title"

    edit(mem_spec_copy, "tools/v1.20.0.json", change)
    problems = list(lint(mem_spec_copy))
    assert {(p.file, p.pointer) for p in problems} == {
        ("tools/v1.20.0.json", f"/tools/{index}/inputSchema/required")
    }


def test_a_broken_meta_schema_is_named(mem_spec_copy: Path) -> None:
    edit(mem_spec_copy, "meta/seed.meta.json", lambda d: d.update(type="objekt"))
    problem = only(mem_spec_copy)
    assert (problem.file, problem.pointer) == ("meta/seed.meta.json", "/type")


# version lines ----------------------------------------------------------------------------------
def test_a_line_must_be_named_for_its_version_and_listed(mem_spec_copy: Path) -> None:
    (mem_spec_copy / "tools/v1.7.0.json").rename(mem_spec_copy / "tools/v1.7.1.json")
    problems = set(lint(mem_spec_copy))
    assert problems == {
        Problem("tools/v1.7.1.json", "/version", "the line v1.7.0 belongs in tools/v1.7.0.json"),
        Problem("contract.json", "/lines/0", "no file tools/v1.7.0.json"),
    }


def test_a_line_file_not_in_contract_json_is_named(mem_spec_copy: Path) -> None:
    edit(mem_spec_copy, "contract.json", lambda d: d["lines"].remove("v3.7.2"))
    problem = only(mem_spec_copy)
    assert problem == Problem(
        "tools/v3.7.2.json", "/version", "v3.7.2 is not in contract.json lines"
    )


def test_tools_of_a_line_are_unique_and_require_only_their_properties(mem_spec_copy: Path) -> None:
    save = tool_index(mem_spec_copy, "v1.7.0", "mem_save")

    def change(document: Any) -> None:
        document["tools"][save]["inputSchema"]["required"].append("project_id")
        document["tools"].append(document["tools"][0])

    edit(mem_spec_copy, "tools/v1.7.0.json", change)
    assert set(lint(mem_spec_copy)) == {
        Problem(
            "tools/v1.7.0.json",
            f"/tools/{save}/inputSchema/required/2",
            "'project_id' is required but is no property",
        ),
        Problem(
            "tools/v1.7.0.json", "/tools/14/name", "tool 'mem_capture_passive' is listed twice"
        ),
    }


def test_evidence_must_name_an_item_and_an_exact_line_has_none_reconstructed(
    mem_spec_copy: Path,
) -> None:
    index = tool_index(mem_spec_copy, "v1.20.0", "mem_save")
    item = {"evidence": "reconstructed", "source": "a guess about the title"}
    evidence = {"/inputSchema/properties/nope": item}
    edit(mem_spec_copy, "tools/v1.20.0.json", lambda d: d["tools"][index].update(evidence=evidence))
    where = f"/tools/{index}/evidence/~1inputSchema~1properties~1nope"
    assert set(lint(mem_spec_copy)) == {
        Problem(
            "tools/v1.20.0.json", where, "'/inputSchema/properties/nope' names nothing in the tool"
        ),
        Problem("tools/v1.20.0.json", where, "an exact line holds a reconstructed item"),
    }


def test_a_seed_tool_must_be_in_some_line(mem_spec_copy: Path) -> None:
    edit(mem_spec_copy, "contract.json", lambda d: d["seed_tools"].append("mem_forget"))
    assert only(mem_spec_copy) == Problem(
        "contract.json", "/seed_tools/12", "tool 'mem_forget' is in no version line"
    )


# rules ------------------------------------------------------------------------------------------
def test_ids_families_and_tools_are_checked(mem_spec_copy: Path) -> None:
    first, second = rule_index(mem_spec_copy, "DISC-002"), rule_index(mem_spec_copy, "DISC-003")

    def change(document: Any) -> None:
        document["rules"][first]["tools"] = ["mem_forget"]
        document["rules"][second]["id"] = "DISC-002"
        document["families"]["ZZZ"] = "a family nobody uses"

    edit(mem_spec_copy, "rules.json", change)
    assert {(p.pointer, p.message) for p in lint(mem_spec_copy)} == {
        (f"/rules/{first}/tools/0", "tool 'mem_forget' is in no version line"),
        (f"/rules/{second}/id", "rule id DISC-002 is used twice"),
        ("/families/ZZZ", "family ZZZ has no rule"),
    }


def test_a_family_must_match_the_id_and_be_declared(mem_spec_copy: Path) -> None:
    index = rule_index(mem_spec_copy, "SAVE-001")
    edit(mem_spec_copy, "rules.json", lambda d: d["rules"][index].update(family="KEEP"))
    assert {p.message for p in lint(mem_spec_copy)} == {
        "family KEEP does not match SAVE-001",
        "family KEEP is not in families",
    }


def test_required_arguments_must_exist_in_some_line(mem_spec_copy: Path) -> None:
    index = rule_index(mem_spec_copy, "SRCH-009")

    def change(document: Any) -> None:
        document["rules"][index]["requires"] = {"mem_search": ["fuzzy"], "mem_context": ["x"]}

    edit(mem_spec_copy, "rules.json", change)
    assert set(lint(mem_spec_copy)) == {
        Problem("rules.json", f"/rules/{index}/requires/mem_search/0",
                "no version line gives mem_search an argument 'fuzzy'"),
        Problem("rules.json", f"/rules/{index}/requires/mem_context",
                "mem_context is required but not in the rule's tools"),
    }  # fmt: skip


def test_a_must_rule_rests_on_the_seed(mem_spec_copy: Path) -> None:
    index = rule_index(mem_spec_copy, "DEL-001")
    source = {"document": "design", "section": "The mem contract / Sources"}
    edit(mem_spec_copy, "rules.json", lambda d: d["rules"][index].update(source=source))
    assert only(mem_spec_copy) == Problem(
        "rules.json", f"/rules/{index}/source", "DEL-001 is a must rule not sourced to the seed"
    )


def test_a_must_rule_has_no_divergence(mem_spec_copy: Path) -> None:
    index = rule_index(mem_spec_copy, "DEL-001")
    edit(mem_spec_copy, "rules.json",
         lambda d: d["rules"][index].update(divergence="upstream does it otherwise"))  # fmt: skip
    assert {p.message for p in lint(mem_spec_copy)} == {
        "DEL-001 is a must rule with a divergence",
        "DEL-001 names a divergence but is no seed-sourced should rule",
    }


def test_a_seed_statement_at_should_names_upstreams_divergence(mem_spec_copy: Path) -> None:
    index = rule_index(mem_spec_copy, "DEL-004")
    edit(mem_spec_copy, "rules.json", lambda d: d["rules"][index].pop("divergence"))
    assert only(mem_spec_copy) == Problem(
        "rules.json",
        f"/rules/{index}",
        "DEL-004 rests on the seed at should, but names no upstream divergence",
    )


def test_a_quote_must_lie_in_a_statement(mem_spec_copy: Path) -> None:
    index = rule_index(mem_spec_copy, "SAVE-001")

    def change(document: Any) -> None:
        document["rules"][index]["source"]["quote"] += " … Engram lo recuerda todo."

    edit(mem_spec_copy, "rules.json", change)
    assert only(mem_spec_copy) == Problem(
        "rules.json",
        f"/rules/{index}/source/quote",
        "SAVE-001 quotes words in no statement of seed.json: 'Engram lo recuerda todo.'",
    )


def test_every_statement_needs_a_rule(mem_spec_copy: Path) -> None:
    """Drop the only rule quoting the seed's title line (S01): the trace has a hole."""
    index = rule_index(mem_spec_copy, "SAVE-008")
    edit(mem_spec_copy, "rules.json", lambda d: d["rules"].pop(index))
    assert only(mem_spec_copy) == Problem(
        "seed.json", "/statements/0", "statement S01 of the seed has no rule"
    )


def test_statement_ids_are_unique(mem_spec_copy: Path) -> None:
    edit(mem_spec_copy, "seed.json", lambda d: d["statements"][1].update(id="S01"))
    assert only(mem_spec_copy) == Problem(
        "seed.json", "/statements/1/id", "statement id S01 is used twice"
    )
