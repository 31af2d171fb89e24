"""mem servers that get topic keys wrong (TOPIC), the way real servers drift: an upsert that
inserts, miscounts, keeps the old title or time, keys matched too loosely or too strictly, and
suggestions of the wrong family, form or wording.

Each is the mem reference with its store patched (``ServiceMutant``) or the answers of a tool
rewritten (``CallMutant``); ``Caught`` says which TOPIC rules it breaks, every other one keeping
its verdict.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import mcp_types as types
from engram_conformance.reference_impl.mem import topic_keys
from engram_conformance.reference_impl.mem.memories import Draft
from engram_conformance.reference_impl.mem.server import Handlers
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.store import Observation

from ...caught import Caught
from ..seams import (
    CallMutant,
    KeysDrafts,
    PerCall,
    ServiceMutant,
    answering,
    mem_caught,
    text_of,
)

SAVE, GET, SUGGEST = "mem_save", "mem_get_observation", "mem_suggest_topic_key"
#: the families seed 003 names (and the reference's ``session``)
SEED_FAMILIES = {"architecture", "bug", "decision", "pattern", "config", "discovery", "learning"}
#: the lines of mem_get_observation's answer that show its times


class MatchesTopics(ServiceMutant):
    """The store's topic lookup replaced by ``match`` (the reference's by default)."""

    def patch(self, service: MemService) -> None:
        store = service.store
        exact = store.topic_match

        def matched(topic_key: str, project: str, scope: str) -> Observation | None:
            return self.match(store, exact, topic_key, project, scope)

        store.topic_match = matched  # type: ignore[method-assign]

    def match(self, store: Any, exact: Any, key: str, project: str, scope: str) -> Any:
        return exact(key, project, scope)


class InsertsOnTopicKey(MatchesTopics):
    """A save with a known topic_key inserts a new row instead of updating the topic's."""

    def match(self, store: Any, exact: Any, key: str, project: str, scope: str) -> Any:
        return None


class HyphenatedKeysNeverMatch(MatchesTopics):
    """A key with a hyphen is stored as written but looked up with underscores, so it never
    matches."""

    def match(self, store: Any, exact: Any, key: str, project: str, scope: str) -> Any:
        return exact(key.replace("-", "_"), project, scope)


class TopicsAcrossProjects(MatchesTopics):
    """The topic lookup ignores the project: a key used in another project revises that
    project's memory."""

    def match(self, store: Any, exact: Any, key: str, project: str, scope: str) -> Any:
        return store._newest_live("topic_key = ? AND scope = ?", (key, scope))


class TopicsAcrossScopes(MatchesTopics):
    """The topic lookup ignores the scope: a personal save with a project's key revises the
    project memory."""

    def match(self, store: Any, exact: Any, key: str, project: str, scope: str) -> Any:
        return store._newest_live("topic_key = ? AND project = ?", (key, project))


class RevisesTopics(ServiceMutant):
    """A topic upsert (a revision that marks the memory seen) done wrong by ``revised``."""

    def patch(self, service: MemService) -> None:
        store = service.store
        revise = store.revise

        def revised(observation_id: int, changes: dict[str, Any], *, seen: bool) -> None:
            before = store.observation(observation_id)
            if not seen or before is None:
                revise(observation_id, changes, seen=seen)
                return
            self.revised(store, revise, observation_id, changes)
            self.after(store, before)

        store.revise = revised  # type: ignore[method-assign]

    def revised(self, store: Any, revise: Any, memory_id: int, changes: dict[str, Any]) -> None:
        revise(memory_id, changes, seen=True)

    def after(self, store: Any, before: Observation) -> None:
        """Change the revised row (``before``: the row as it was)."""


class RevisionCountStopsAtTwo(RevisesTopics):
    """An upsert sets revision_count to 2 instead of adding one."""

    def after(self, store: Any, before: Observation) -> None:
        store.connection.execute(
            "UPDATE observations SET revision_count = 2 WHERE id = ?", (before.id,)
        )


class UpsertKeepsUpdatedAt(RevisesTopics):
    """An upsert leaves updated_at as it was."""

    def after(self, store: Any, before: Observation) -> None:
        store.connection.execute(
            "UPDATE observations SET updated_at = ? WHERE id = ?", (before.updated_at, before.id)
        )


class UpsertKeepsTitle(RevisesTopics):
    """An upsert revises the content but keeps the first title."""

    def revised(self, store: Any, revise: Any, memory_id: int, changes: dict[str, Any]) -> None:
        revise(memory_id, {k: v for k, v in changes.items() if k != "title"}, seen=True)


class KeysMatchedAsGiven(CallMutant, KeysDrafts):
    """topic_key is only trimmed, not lowercased nor its spaces joined, before matching."""

    given_key: PerCall[str | None] = PerCall(None)

    def sent(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        key = arguments.get("topic_key")
        self.given_key = key.strip() if tool == SAVE and isinstance(key, str) else None
        return arguments

    def keyed(self, draft: Draft) -> str | None:
        return self.given_key or draft.topic_key


class SuggestionMutant(CallMutant):
    """mem_suggest_topic_key's successful answers (the bare key) rewritten by ``suggested``."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        if tool != SUGGEST or result.is_error:
            return result
        return answering(result, self.suggested(arguments, text_of(result)))

    def suggested(self, arguments: dict[str, Any], key: str) -> str:
        return key


class SlugsWithUnderscores(SuggestionMutant):
    """A suggestion joins the title's words with underscores."""

    def suggested(self, arguments: dict[str, Any], key: str) -> str:
        return key.replace("-", "_")


class LabelsSuggestion(SuggestionMutant):
    """A suggestion answers upstream's "Suggested topic_key: <key>", not the bare key."""

    def suggested(self, arguments: dict[str, Any], key: str) -> str:
        return f"Suggested topic_key: {key}"


class BugfixFamilyIsBugfix(SuggestionMutant):
    """Type bugfix suggests bugfix/… (the type's own name) instead of bug/…."""

    def suggested(self, arguments: dict[str, Any], key: str) -> str:
        bugfix = arguments.get("type") == "bugfix"
        return key.replace("bug/", "bugfix/", 1) if bugfix else key


class NoFamilyFromText(SuggestionMutant):
    """A type that names no family gives topic/…, whatever the title says."""

    def suggested(self, arguments: dict[str, Any], key: str) -> str:
        named = topic_keys.type_family(str(arguments.get("type") or ""))
        return key if named is not None else f"topic/{key.split('/', 1)[1]}"


class NumbersRepeatedSuggestions(SuggestionMutant):
    """A suggestion asked again gets a numbered suffix, as if the first were taken."""

    def __init__(self, service: MemService) -> None:
        super().__init__(service)
        self.asked: Counter[str] = Counter()

    def suggested(self, arguments: dict[str, Any], key: str) -> str:
        asked = repr(sorted(arguments.items()))
        self.asked[asked] += 1
        return key if self.asked[asked] == 1 else f"{key}-{self.asked[asked]}"


class UnderscoresOutsideFamilies(SuggestionMutant):
    """A key outside the seed's families joins its words with underscores (custom_type/…)."""

    def suggested(self, arguments: dict[str, Any], key: str) -> str:
        return key if key.split("/", 1)[0] in SEED_FAMILIES else key.replace("-", "_")


class SuggestsForNothing(CallMutant):
    """A suggestion with neither title nor content answers topic/general instead of isError."""

    def answered(
        self, tool: str, arguments: dict[str, Any], result: types.CallToolResult
    ) -> types.CallToolResult:
        refused = tool == SUGGEST and result.is_error
        return answering(result, "topic/general", is_error=False) if refused else result


#: each mutant and what it breaks
MUTANTS: list[tuple[type[Handlers], Caught]] = [
    (
        InsertsOnTopicKey,
        mem_caught("TOPIC-001", "TOPIC-002", "TOPIC-003", "TOPIC-009", "TOPIC-012"),
    ),
    (RevisionCountStopsAtTwo, mem_caught("TOPIC-001")),
    (UpsertKeepsUpdatedAt, mem_caught("TOPIC-002")),
    (UpsertKeepsTitle, mem_caught("TOPIC-001", "TOPIC-003")),
    (HyphenatedKeysNeverMatch, mem_caught("TOPIC-003", "TOPIC-009", "TOPIC-012")),
    (TopicsAcrossProjects, mem_caught("TOPIC-010")),
    (TopicsAcrossScopes, mem_caught("TOPIC-010")),
    (KeysMatchedAsGiven, mem_caught("TOPIC-012")),
    (SlugsWithUnderscores, mem_caught("TOPIC-004", "TOPIC-008", "TOPIC-014")),
    (LabelsSuggestion, mem_caught("TOPIC-005")),
    (BugfixFamilyIsBugfix, mem_caught("TOPIC-006")),
    (NoFamilyFromText, mem_caught("TOPIC-007")),
    (NumbersRepeatedSuggestions, mem_caught("TOPIC-008")),
    (UnderscoresOutsideFamilies, mem_caught("TOPIC-014")),
    (SuggestsForNothing, mem_caught("TOPIC-013")),
]
