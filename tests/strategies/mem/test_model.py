"""The mem model's counters and lookups: what the machine judges a server's answers by."""

from __future__ import annotations

from engram_conformance.strategies.mem.model import (
    PERSONAL,
    PROJECT,
    Count,
    ExampleModel,
    Memory,
)


def memory(memory_id: int, project: str, scope: str, **fields: object) -> Memory:
    values: dict = {
        "type": "bugfix",
        "title": f"Saved tok{memory_id} term",
        "content": "c",
        "token": f"tok{memory_id}",
        "topic_key": None,
        "session": None,
        "revisions": Count.unknown(),
        "duplicates": Count.exactly(1),
        "created_at": 0.0,
    }
    return Memory(id=memory_id, project=project, scope=scope, **(values | fields))


def test_a_count_is_a_range_narrowed_by_what_the_server_shows() -> None:
    lost = Count.exactly(1)
    lost.add(1, 2)  # a repeat whose first attempt may not have reached the server
    assert (lost.holds(2), lost.holds(3), lost.holds(4)) == (True, True, False)
    assert str(lost) == "2 to 3"
    lost.learn(3)
    assert str(lost) == "3" and not lost.holds(2)


def test_an_unknown_count_holds_anything_until_learnt() -> None:
    count = Count.unknown()
    assert not count.known and count.holds(0) and count.holds(10**6)
    count.add(1)
    assert not count.known
    count.learn(4)
    count.add(1)
    assert count.known and str(count) == "5"


def test_live_memories_by_project_scope_and_type() -> None:
    model = ExampleModel(("a", "b"))
    for item in (
        memory(1, "a", PROJECT),
        memory(2, "a", PERSONAL, type="decision"),
        memory(3, "b", PERSONAL),
        memory(4, "a", PROJECT, deleted="soft"),
    ):
        model.memories[item.id] = item
    assert [m.id for m in model.live("a")] == [1, 2]
    assert [m.id for m in model.live(scope=PERSONAL)] == [2, 3]
    assert [m.id for m in model.live("a", type="decision")] == [2]


def test_a_topic_holder_is_live_and_of_its_project_and_scope() -> None:
    model = ExampleModel(("a", "b"))
    model.memories[1] = memory(1, "a", PROJECT, topic_key="config/k", deleted="soft")
    model.memories[2] = memory(2, "a", PERSONAL, topic_key="config/k")
    assert model.topic_holder("config/k", "a", PROJECT) is None
    assert model.topic_holder("config/k", "a", PERSONAL) is model.memories[2]
    assert [m.id for m in model.with_key("config/k")] == [1, 2]


def test_a_rewritten_memory_is_found_by_its_old_title_and_is_no_longer_repeatable() -> None:
    model = ExampleModel(("a", "b"))
    saved = memory(1, "a", PROJECT, repeatable={"title": "Saved tok1 term"})
    model.memories[1] = saved
    saved.rewritten("Updated tok9 term", "new", "UPD-001")
    assert model.titled("Saved tok1 term") is saved and model.titled("Updated tok9 term") is saved
    assert saved.repeatable is None and saved.shaped_by == "UPD-001"
