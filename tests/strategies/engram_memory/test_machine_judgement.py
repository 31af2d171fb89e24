"""The lifecycle machine's judgement, one step at a time: which rule an answer is charged to.

A scripted driver answers each call from a queue, so that a step can be shown an answer no
conforming server gives (or one the seed allows and this kit's decisions do not).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from engram_conformance.spec.engram_memory.tool_names import (
    ADMIT,
    CAPTURE,
    FORGET,
    GET,
    SEARCH,
    WITHDRAW,
)
from engram_conformance.strategies.engram_memory.answers import (
    effect,
    is_replay_of,
    receipt_identity,
    repeats_receipt,
)
from engram_conformance.strategies.engram_memory.machines import (
    ACTORS,
    Violation,
    lifecycle_machine,
)
from engram_conformance.strategies.engram_memory.model import CandidateState

CANDIDATE, OTHER_CANDIDATE = "cand_a", "cand_b"
RECORD, OTHER_RECORD, GONE = "mem_aaaa", "mem_bbbb", "mem_cccc"
DIGEST = "sha256:" + "0" * 64


@dataclass
class Answer:
    """A result whose structured content is the envelope these fields make."""

    ok: bool
    value: dict[str, Any] = field(default_factory=dict)
    code: str | int | None = None
    outcome = "result"
    error_code = None

    @property
    def structured(self) -> dict[str, Any]:
        if self.ok:
            return {"ok": True, "output": {"schema_version": 1, "value": self.value}}
        return {"ok": False, "error": {"code": self.code, "message": "m", "retriable": False}}


def success(value: dict[str, Any]) -> Answer:
    return Answer(True, value)


def failure(code: str | int) -> Answer:
    return Answer(False, code=code)


class ScriptedDriver:
    """A ``Driver`` whose answers the test gives: ``answers[tool]``, in order."""

    forges_confirmations = True

    def __init__(self) -> None:
        self.answers: dict[str, list[Answer]] = {}
        self.passes: Counter[str] = Counter()
        self.broken: list[str] = []
        self.count = 0

    def begin(self) -> dict[str, tuple[str, str, str]]:
        return {actor: (f"tenant {actor}", f"workspace {actor}", "principal") for actor in ACTORS}

    def unique(self, label: str) -> str:
        self.count += 1
        return f"{label}{self.count}"

    def capture_arguments(self, actor: str, text: str, key: str) -> dict[str, Any]:
        return {"idempotency_key": key, "payload": {"text": text}}

    def purpose(self, actor: str) -> str:
        return "purpose:test"

    def call(self, actor: str, tool: str, arguments: dict[str, Any], approval: str) -> Answer:
        assert self.answers.get(tool), f"no answer given for {tool}"
        return self.answers[tool].pop(0)

    def retry_after_lost_answer(self, actor: str, tool: str, arguments: dict[str, Any]) -> Answer:
        return self.call(actor, tool, arguments, "valid")

    def at_once(self, actor: str, tool: str, arguments: dict[str, Any], times: int) -> list[Answer]:
        return [self.call(actor, tool, arguments, "valid") for _ in range(times)]

    def step(self, description: str) -> None:
        pass

    def passed(self, rule: str) -> None:
        self.passes[rule] += 1

    def violated(self, rule: str, expected: str, observed: Any) -> None:
        self.broken.append(rule)


def outcome(status: str, candidate: str = CANDIDATE, record: str | None = None) -> Answer:
    value: dict[str, Any] = {
        "status": status,
        "candidate_id": candidate,
        "cursor": "1",
        "decision_receipt_digest": DIGEST,
        "transaction_receipt_digest": DIGEST,
    }
    if record is not None:
        value["record_id"] = record
    return success({"outcome": value, "replayed": False})


def receipt(
    tool: str, *, replayed: bool = False, event: str = "event-1", to_state: str | None = None
) -> Answer:
    withdraw = tool == WITHDRAW
    value = {
        "event_id": event,
        "operation": "withdraw" if withdraw else "tombstone",
        "from_state": "pending" if withdraw else "accepted_current",
        "to_state": to_state or ("withdrawn" if withdraw else "tombstoned"),
        "cursor": "2",
        "event_digest": DIGEST if event == "event-1" else "sha256:" + "1" * 64,
        "authorization_receipt_digest": DIGEST,
        "transaction_receipt_digest": DIGEST,
    }
    return success({"receipt": value, "replayed": replayed})


def found(*record_ids: str) -> Answer:
    packets = [{"record": {"record_id": r}, "rank": n} for n, r in enumerate(record_ids, 1)]
    return success({"records": packets, "rank_receipt": {}})


def got(record_id: str) -> Answer:
    return success({"record": {"record_id": record_id}})


@pytest.fixture
def driver() -> ScriptedDriver:
    return ScriptedDriver()


@pytest.fixture
def machine(driver: ScriptedDriver) -> Any:
    """A machine whose owner's scope holds a pending candidate, a withdrawn one, two current
    records (terms ``one`` and ``two``) and a tombstoned record."""
    machine = lifecycle_machine(driver)()
    own = machine.own
    own.captured(CANDIDATE, "pending")
    own.captured(OTHER_CANDIDATE, "withdrawn")
    own.withdrawn(OTHER_CANDIDATE)
    for candidate, record, term in (
        ("cand_1", RECORD, "one"),
        ("cand_2", OTHER_RECORD, "two"),
        ("cand_3", GONE, "gone"),
    ):
        own.captured(candidate, term)
        own.admitted(candidate, "accepted", record)
    own.forgotten(GONE)
    return machine


def broken(driver: ScriptedDriver, step: Callable[[], Any]) -> str | None:
    """The rule ``step`` broke, or None."""
    try:
        step()
    except Violation as violation:
        assert driver.broken[-1] == violation.rule
        return violation.rule
    return None


# 1. a refused call is blamed only when the answer shows its effect ------------------------------


def test_a_disagreement_that_shows_no_write_is_charged_to_the_steps_own_rule(
    machine: Any, driver: ScriptedDriver
) -> None:
    machine.own.refused(CANDIDATE, "SCOPE-006")
    driver.answers[ADMIT] = [outcome("accepted_maybe")]
    assert broken(driver, lambda: machine.admission(CANDIDATE)) == "LIFE-003"


def test_a_disagreement_that_shows_the_target_moved_is_charged_to_the_refusal(
    machine: Any, driver: ScriptedDriver
) -> None:
    machine.own.refused(CANDIDATE, "GATE-012")
    driver.answers[WITHDRAW] = [failure("ILLEGAL_TRANSITION")]
    assert broken(driver, lambda: machine.withdraw(CANDIDATE, "answered")) == "GATE-012"
    machine.own.refused(RECORD, "IDEM-006")
    driver.answers[GET] = [failure("NOT_FOUND")]
    assert broken(driver, lambda: machine.get_record(RECORD)) == "IDEM-006"
    driver.answers[GET] = [got(OTHER_RECORD)]  # another record: not the refusal's doing
    assert broken(driver, lambda: machine.get_record(RECORD)) == "LIFE-004"


# 2. what a search reveals wrongly --------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "rule"),
    [
        (found(RECORD, OTHER_RECORD), "SEARCH-002"),  # another current record: relevance
        (found(RECORD, "mem_zzzz"), "SEARCH-001"),  # an id of no current record
        (found(RECORD, CANDIDATE), "SEARCH-001"),  # a pending candidate
        (found(RECORD, GONE), "LIFE-017"),  # a forgotten record
        (found(RECORD, RECORD), "PAGE-002"),  # a record twice
        (found(RECORD, OTHER_RECORD, GONE), "LIFE-017"),  # the seed's rules first
        (failure("STORE_UNAVAILABLE"), "SEARCH-002"),
        (found(RECORD), None),
    ],
)
def test_a_term_search_is_charged_to_the_rule_it_breaks(
    machine: Any, driver: ScriptedDriver, answer: Answer, rule: str | None
) -> None:
    driver.answers[SEARCH] = [answer]
    assert broken(driver, lambda: machine.search_its_term(RECORD)) == rule


@pytest.mark.parametrize(("refusal", "rule"), [("SCOPE-006", "SCOPE-006"), (None, "SEARCH-001")])
def test_an_unknown_record_with_a_refused_candidates_term_is_charged_to_the_refusal(
    machine: Any, driver: ScriptedDriver, refusal: str | None, rule: str
) -> None:
    """A foreign admission refused NOT_FOUND that admitted the owner's candidate all the same:
    its record is current, so SEARCH-001 is not what broke."""
    if refusal is not None:
        machine.own.refused(CANDIDATE, refusal)
    answer = found(RECORD, OTHER_RECORD)
    text = {"record_id": "mem_new", "components": [{"text": "model pending"}]}
    answer.value["records"].append({"record": text, "rank": 3})
    driver.answers[SEARCH] = [answer]
    assert broken(driver, machine.scope_reveals_exactly_its_current_records) == rule


@pytest.mark.parametrize(
    ("refusal", "get", "rule"),
    [
        (None, got(RECORD), "SEARCH-002"),  # still there: relevance
        ("GATE-012", got(RECORD), "SEARCH-002"),  # the refused forget wrote nothing
        ("GATE-012", failure("NOT_FOUND"), "GATE-012"),  # it did forget the record
        (None, failure("NOT_FOUND"), "LIFE-004"),  # the record was lost
    ],
)
def test_a_missing_record_is_charged_to_what_get_shows(
    machine: Any, driver: ScriptedDriver, refusal: str | None, get: Answer, rule: str
) -> None:
    if refusal is not None:
        machine.own.refused(RECORD, refusal)
    driver.answers[SEARCH] = [found()]
    driver.answers[GET] = [get]
    assert broken(driver, lambda: machine.search_its_term(RECORD)) == rule


# 3. duplicate_exact on a first admission ---------------------------------------------------------


def test_duplicate_exact_on_a_first_admission_is_a_decision_of_the_seed(
    machine: Any, driver: ScriptedDriver
) -> None:
    driver.answers[ADMIT] = [outcome("duplicate_exact", record="mem_dddd")]
    assert broken(driver, lambda: machine.admission(CANDIDATE)) is None
    assert driver.passes["LIFE-003"] == 1
    assert machine.own.candidates[CANDIDATE].state is CandidateState.UNSETTLED
    # the record it names may be revealed, or not
    for answer in (found(RECORD, OTHER_RECORD, "mem_dddd"), found(RECORD, OTHER_RECORD)):
        driver.answers[SEARCH] = [answer]
        assert broken(driver, machine.scope_reveals_exactly_its_current_records) is None


@pytest.mark.parametrize(
    ("answer", "state"),
    [
        (failure("ILLEGAL_TRANSITION"), CandidateState.DUPLICATE),
        (outcome("accepted", record="mem_eeee"), CandidateState.ACCEPTED),
    ],
)
def test_the_next_admission_settles_an_unsettled_candidate(
    machine: Any, driver: ScriptedDriver, answer: Answer, state: CandidateState
) -> None:
    machine.own.admitted(CANDIDATE, "duplicate_exact", None)
    driver.answers[ADMIT] = [answer]
    assert broken(driver, lambda: machine.admission(CANDIDATE)) is None
    assert machine.own.candidates[CANDIDATE].state is state
    # settled: no longer pending, so the lifecycle refuses a further admission
    driver.answers[ADMIT] = [outcome("accepted", record="mem_ffff")]
    assert broken(driver, lambda: machine.admission(CANDIDATE)) == "LIFE-012"


def test_replayed_true_on_a_new_key_breaks_the_replay_rule(
    machine: Any, driver: ScriptedDriver
) -> None:
    driver.answers[WITHDRAW] = [receipt(WITHDRAW, replayed=True)]
    assert broken(driver, lambda: machine.withdraw(CANDIDATE, "answered")) == "IDEM-004"


def test_an_accepted_outcome_without_a_record_id_breaks_life_004(
    machine: Any, driver: ScriptedDriver
) -> None:
    driver.answers[ADMIT] = [outcome("accepted")]
    assert broken(driver, lambda: machine.admission(CANDIDATE)) == "LIFE-004"


def test_a_target_no_transition_can_take_is_judged_before_the_answers_agree(
    machine: Any, driver: ScriptedDriver
) -> None:
    """Calls sent at once that each admit a withdrawn candidate break the lifecycle first."""
    driver.answers[ADMIT] = [outcome("accepted", OTHER_CANDIDATE, f"mem_{n}") for n in "xyz"]
    assert broken(driver, lambda: machine.admission(OTHER_CANDIDATE, "sent at once")) == "LIFE-012"


def test_a_forgotten_record_forgotten_again_is_refused(
    machine: Any, driver: ScriptedDriver
) -> None:
    driver.answers[FORGET] = [receipt(FORGET), failure("ALREADY_TERMINAL")]
    driver.answers[GET] = [failure("NOT_FOUND")]
    assert broken(driver, lambda: machine.forget(RECORD, "answered", again=True)) is None
    assert driver.passes["LIFE-016"] == 1


def test_a_record_get_still_answers_once_forgotten_breaks_life_017(
    machine: Any, driver: ScriptedDriver
) -> None:
    driver.answers[FORGET] = [receipt(FORGET)]
    driver.answers[GET] = [got(RECORD)]
    assert broken(driver, lambda: machine.forget(RECORD, "answered")) == "LIFE-017"


# 4. a replay repeats the transition (the seed), and the receipt's identity (this kit) -----------


def test_a_replay_compares_states_and_the_receipt_identity_apart() -> None:
    first, again = receipt(WITHDRAW), receipt(WITHDRAW, replayed=True, event="event-2")
    assert effect(WITHDRAW, first) == ("withdraw", "pending", "withdrawn")
    assert is_replay_of(WITHDRAW, again, first)
    assert not repeats_receipt(WITHDRAW, again, first)
    assert receipt_identity(first) == ("event-1", DIGEST)
    assert repeats_receipt(ADMIT, outcome("accepted"), outcome("rejected"))  # no receipt


@pytest.mark.parametrize(
    ("replay", "rule"),
    [
        (receipt(FORGET, replayed=True), None),
        (receipt(FORGET, replayed=True, event="event-2"), "IDEM-015"),
        (receipt(FORGET, replayed=True, to_state="accepted_current"), "IDEM-004"),
        (receipt(FORGET, replayed=False), "IDEM-004"),
    ],
)
def test_a_forget_replay_is_charged_to_what_differs(
    machine: Any, driver: ScriptedDriver, replay: Answer, rule: str | None
) -> None:
    driver.answers[FORGET] = [receipt(FORGET)]
    driver.answers[GET] = [failure("NOT_FOUND")]
    machine.forget(RECORD, "answered")
    driver.answers[FORGET] = [replay]
    key = machine.keys[-1]
    first = machine.model.reservations[machine._identity(key)]
    assert broken(driver, lambda: machine.reuse(key, FORGET, first.arguments)) == rule


def test_replays_sent_at_once_repeat_the_receipt(machine: Any, driver: ScriptedDriver) -> None:
    driver.answers[WITHDRAW] = [
        receipt(WITHDRAW),
        receipt(WITHDRAW, replayed=True),
        receipt(WITHDRAW, replayed=True, event="event-2"),
    ]
    assert broken(driver, lambda: machine.withdraw(CANDIDATE, "sent at once")) == "IDEM-015"


# 5. a conflict on a target no transition can take -----------------------------------------------


def withdraw_key(machine: Any, driver: ScriptedDriver) -> str:
    """The key of a withdraw of a new candidate, ``cand_w``."""
    driver.answers[WITHDRAW] = [receipt(WITHDRAW)]
    machine.own.captured("cand_w", "w")
    machine.withdraw("cand_w", "answered")
    return machine.keys[-1]


@pytest.mark.parametrize(
    ("tool", "target", "answer", "rule"),
    [
        (WITHDRAW, OTHER_CANDIDATE, failure("DIGEST_CONFLICT"), None),
        (WITHDRAW, OTHER_CANDIDATE, failure("ILLEGAL_TRANSITION"), "HOST-016"),
        (FORGET, GONE, failure("ALREADY_TERMINAL"), "HOST-016"),
        (WITHDRAW, OTHER_CANDIDATE, receipt(WITHDRAW), "IDEM-006"),
        (WITHDRAW, CANDIDATE, failure("ILLEGAL_TRANSITION"), "IDEM-006"),  # pending
        (ADMIT, OTHER_CANDIDATE, failure("ILLEGAL_TRANSITION"), "HOST-016"),
        (FORGET, RECORD, failure("ALREADY_TERMINAL"), "IDEM-007"),  # current
    ],
)
def test_a_conflict_on_a_target_no_transition_can_take_may_come_after_the_lifecycle(
    machine: Any, driver: ScriptedDriver, tool: str, target: str, answer: Answer, rule: str | None
) -> None:
    key = withdraw_key(machine, driver)
    driver.answers[tool] = [answer]
    arguments = machine.transition(tool, target, key)
    assert broken(driver, lambda: machine.reuse(key, tool, arguments)) == rule
    if rule is None:
        assert driver.passes["HOST-016"] == 1


def test_other_content_on_the_same_target_is_a_conflict_first(
    machine: Any, driver: ScriptedDriver
) -> None:
    key = withdraw_key(machine, driver)  # cand_w is withdrawn now
    driver.answers[WITHDRAW] = [failure("ILLEGAL_TRANSITION")]
    other = machine.transition(WITHDRAW, "cand_w", key, "reason:model-other")
    assert broken(driver, lambda: machine.reuse(key, WITHDRAW, other)) == "IDEM-005"


# 6. the gate on a target no transition can take -------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "target", "approval", "answer", "rule"),
    [
        (WITHDRAW, OTHER_CANDIDATE, "expired", failure("gate_failed"), None),
        (WITHDRAW, OTHER_CANDIDATE, "expired", failure("ILLEGAL_TRANSITION"), "GATE-011"),
        (FORGET, GONE, "other_target", failure("ALREADY_TERMINAL"), "GATE-011"),
        (FORGET, GONE, "other_target", failure("NOT_FOUND"), "GATE-003"),
        (WITHDRAW, CANDIDATE, "expired", failure("ILLEGAL_TRANSITION"), "GATE-004"),
        (FORGET, GONE, "absent", failure("ALREADY_TERMINAL"), "GATE-001"),
    ],
)
def test_the_gate_may_come_after_the_lifecycle_on_a_target_no_transition_can_take(
    machine: Any,
    driver: ScriptedDriver,
    tool: str,
    target: str,
    approval: str,
    answer: Answer,
    rule: str | None,
) -> None:
    driver.answers[tool] = [answer]
    assert broken(driver, lambda: machine.refuse_unconfirmed(tool, target, approval)) == rule


# 7. a first capture's candidate_id ---------------------------------------------------------------


def captured(candidate: Any) -> Answer:
    value = {"status": "committed_pending", "cursor": "1", "transaction_receipt_digest": DIGEST}
    return success(value if candidate is None else {**value, "candidate_id": candidate})


@pytest.mark.parametrize(
    ("candidate", "rule"),
    [
        ("cand_new", None),
        (42, None),  # not a string: ENV-012's, not the seed's
        (["cand", "list"], None),
        ("", None),  # empty: ENV-012's too
        (None, "LIFE-001"),  # absent
        (CANDIDATE, "LIFE-001"),  # answered before
    ],
)
def test_a_first_capture_needs_a_candidate_id_present_and_new(
    machine: Any, driver: ScriptedDriver, candidate: Any, rule: str | None
) -> None:
    before = set(machine.own.candidates)
    driver.answers[CAPTURE] = [captured(candidate)]
    assert broken(driver, lambda: machine.first_capture(machine.new_key(), "LIFE-001")) == rule
    if rule is None:  # the model keeps only an id that a transition can send back
        kept = {"cand_new"} if candidate == "cand_new" else set()
        assert set(machine.own.candidates) == before | kept
