"""Topic keys: the ``family/segment`` a memory is suggested (``mem_suggest_topic_key``, and
``mem_save`` without a key), and the form a given key is stored in.

The families are the seed's (architecture, bug, decision, pattern, config, discovery, learning),
plus ``session`` for session summaries. The family comes from the type when the type names one,
else from the first keyword group found in the title and content, else from the type itself;
the segment is the slug of the title (all its words: upstream drops a first word that repeats
the family, "Bug in parser" giving ``bug/in-parser`` where the reference gives
``bug/bug-in-parser``), else of the content's first words. So ``(architecture, "Auth middleware
design")`` gives ``architecture/auth-middleware-design``, the seed's worked example.
"""

from __future__ import annotations

from .text import folded_form, slug

KEY_LIMIT = 120
_CONTENT_WORDS = 8

#: type -> family, for the types that name one
_TYPE_FAMILIES = {
    **dict.fromkeys(("architecture", "design", "adr", "refactor"), "architecture"),
    **dict.fromkeys(("bug", "bugfix", "fix", "incident", "hotfix"), "bug"),
    "decision": "decision",
    **dict.fromkeys(("pattern", "convention", "guideline"), "pattern"),
    **dict.fromkeys(("config", "setup", "infra", "infrastructure", "ci"), "config"),
    **dict.fromkeys(("discovery", "investigation", "root_cause", "root-cause"), "discovery"),
    **dict.fromkeys(("learning", "learn"), "learning"),
    "session_summary": "session",
}
#: (family, words): the first family one of whose words occurs in the text, in this order
_KEYWORD_FAMILIES = (
    ("bug", ("bug", "fix", "panic", "error", "crash", "regression", "incident", "hotfix")),
    ("architecture", ("architecture", "design", "adr", "boundary", "hexagonal", "refactor")),
    ("decision", ("decision", "tradeoff", "chose", "choose", "decide")),
    ("pattern", ("pattern", "convention", "naming", "guideline")),
    ("config", ("config", "setup", "environment", "env", "docker", "pipeline")),
    ("discovery", ("discovery", "investigate", "investigation", "found", "root cause")),
    ("learning", ("learned", "learning")),
)
_GENERIC_TYPE = "manual"


def type_family(memory_type: str) -> str | None:
    """The family a type names, if it names one."""
    return _TYPE_FAMILIES.get(memory_type.strip().lower())


def family(memory_type: str, title: str, content: str) -> str:
    """The family of a memory: its type's, else a keyword's (a plain substring test, as
    upstream: ``prefix`` counts as ``fix``), else its type's slug, else ``topic``."""
    named = type_family(memory_type)
    if named is not None:
        return named
    text = f"{title} {content}".lower()
    for found, words in _KEYWORD_FAMILIES:
        if any(word in text for word in words):
            return found
    typed = slug(memory_type)
    return typed if typed and typed != _GENERIC_TYPE else "topic"


def suggest(memory_type: str, title: str, content: str) -> str:
    """The suggested key of a memory (of redacted text: ``arguments``)."""
    chosen = family(memory_type, title, content)
    segment = slug(title) or slug(" ".join(content.split()[:_CONTENT_WORDS])) or "general"
    return f"{chosen}/{segment}"


def normalized(key: str) -> str | None:
    """A given key as stored and matched: folded as names are (``text.folded_form``: fullwidth
    letters, no zero width space), trimmed, lowercased, whitespace runs as ``-``, at most
    ``KEY_LIMIT`` characters; other punctuation (``/``) kept. Blank: no key."""
    return "-".join(folded_form(key).lower().split())[:KEY_LIMIT] or None
