"""Known failures of a CI gate: a listed failure passes the gate, a listed rule that now passes
fails it as stale, an unlisted failure fails it.

The file is JSON: ``{"known_failures": {"RULE-ID": "why it is known", ...}}``, with the
contract its rules are of, ``"contract": "engram-memory"``, if it says (then a run of another
contract refuses it). A rule's mark goes
into its report record, and the gate reads the record (``reports.RuleRecord.fails_gate``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engram_conformance.reports import Verdict


@dataclass
class BaselineError(Exception):
    file: str
    problem: str

    def __str__(self) -> str:
        return f"{self.file}: {self.problem}"


@dataclass(frozen=True)
class Baseline:
    known_failures: dict[str, str]

    @classmethod
    def load(cls, path: Path, rule_ids: set[str], contract: str | None = None) -> Baseline:
        """The baseline in ``path`` for a run of ``contract``, whose rules are ``rule_ids``."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise BaselineError(str(path), f"cannot be read: {error.strerror or error}") from None
        except ValueError as error:
            raise BaselineError(str(path), f"is not JSON: {error}") from None
        known = data.get("known_failures") if isinstance(data, dict) else None
        if not isinstance(known, dict) or not all(isinstance(v, str) for v in known.values()):
            raise BaselineError(str(path), 'expected {"known_failures": {"RULE-ID": "reason"}}')
        named = data.get("contract")
        if named is not None and contract is not None and named != contract:
            problem = f"is a baseline of the {named!r} contract; this run tests {contract!r}"
            raise BaselineError(str(path), problem)
        unknown = sorted(set(known) - rule_ids)
        if unknown:
            raise BaselineError(str(path), f"names rules the spec does not have: {unknown}")
        return cls(dict(known))

    def mark(self, rule: str, verdict: Verdict) -> str | None:
        """``known_failure``, ``stale`` or None for one rule's verdict."""
        if rule not in self.known_failures or verdict == Verdict.NOT_APPLICABLE:
            return None  # a listed rule the target makes inapplicable is neither known nor stale
        broken = verdict in (Verdict.FAIL, Verdict.WARN, Verdict.ERROR)
        return "known_failure" if broken else "stale"
