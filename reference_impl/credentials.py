"""The reference admission policy's credential detector (contract text, section 4).

A candidate whose text carries something that looks like a secret is rejected, never admitted:
private keys, cloud access keys, bearer tokens, password-style pairs, JWTs, provider tokens and
connection strings with a password. Every pattern runs in time linear in the text (no part
unbounded where a failed match would rescan it): it runs inside the write transaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PATTERNS = [
    re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"(?i)\bbearer\s+[a-z0-9._~+/-]{16,}=*"),
    # the name may end a longer one joined by _ or - (DB_PASSWORD=, AWS_SECRET_ACCESS_KEY=)
    re.compile(
        r"(?i)(?<![a-z0-9])"
        r"(?:password|passwd|pwd|secret(?:[_-]?access)?(?:[_-]?key)?|api[_-]?key"
        r"|access[_-]?token|auth[_-]?token)"
        r"\s*[=:]\s*['\"]?[^\s'\"]{4,}"
    ),
    # a JWT's header is short: bounded, so that "eyJ-eyJ-..." is not rescanned to its end
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,512}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\bsk-[A-Za-z0-9_-]{20,}"),
    # bounded parts: with ``*`` a text such as "a.a.a..." is rescanned from every letter (quadratic)
    re.compile(r"(?i)\b[a-z][a-z0-9+.-]{0,31}://[^\s:/@]{1,256}:[^\s/@]{1,256}@"),
]


def carries_credential(texts: Iterable[str]) -> bool:
    """Whether any of ``texts`` contains something that looks like a credential."""
    return any(pattern.search(text) for text in texts for pattern in _PATTERNS)
