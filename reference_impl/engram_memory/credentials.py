"""The reference admission policy's credential detector (contract text, section 4).

A candidate whose text carries something that looks like a secret is rejected, never admitted:
private key blocks (PEM, PGP, OpenSSH, PuTTY), cloud keys (an AWS access key id, a secret access
key next to its name or bare), bearer and authorization headers, password-style pairs and
``.env`` lines, session cookies, JWTs (the host's own binding token is one), provider tokens and
webhook URLs, and connection strings with a password.

Evasions are folded away first: format characters (Unicode category Cf: zero-width spaces and
joiners, soft hyphens, bidirectional marks) are removed and the text is NFKC-normalized, so that
fullwidth or other compatibility forms read as ASCII. The texts are read each alone and each
run together with the next, so that a credential split between two components is seen whole.

Every pattern runs in time linear in the text: no part is both unbounded and followed by
something a failed match would make it give back (nested or adjacent unbounded repetitions
rescan the rest of the text from every position). The scan runs outside the write transaction.
"""

from __future__ import annotations

import base64
import binascii
import re
import string
import unicodedata
from collections.abc import Iterable, Iterator
from itertools import pairwise

#: Cf characters live in planes 0, 1 and 14 only; reading those three planes keeps import cheap.
_PLANES = (range(0x20000), range(0xE0000, 0xF0000))
FORMAT_CHARACTERS = frozenset(
    chr(code) for plane in _PLANES for code in plane if unicodedata.category(chr(code)) == "Cf"
)


def _utf8_forms(characters: Iterable[str]) -> re.Pattern[bytes]:
    """A byte pattern of the UTF-8 forms of ``characters``: one branch per form's leading
    bytes, its last byte a class. A search skips what no form begins with (ASCII, most
    scripts), where ``str.translate`` of a text that is not ASCII costs 50 ns a character."""
    last_bytes: dict[bytes, list[int]] = {}
    for form in sorted(character.encode() for character in characters):
        last_bytes.setdefault(form[:-1], []).append(form[-1])
    return re.compile(
        b"|".join(
            re.escape(lead) + b"[" + b"".join(b"\\x%02x" % byte for byte in ends) + b"]"
            for lead, ends in last_bytes.items()
        )
    )


_FORMAT_FORMS = _utf8_forms(FORMAT_CHARACTERS)
_DELETED = dict.fromkeys(map(ord, FORMAT_CHARACTERS))

#: What separates texts read each alone. No pattern reads across it: those that cross white space
#: read no NUL, and those that read a NUL (negated classes) stop at white space.
SEPARATOR = "\n\0\n"

#: A private key block's armour header: PEM (``RSA``, ``EC``, ``ENCRYPTED``, ``OPENSSH`` ...),
#: PGP (``... PRIVATE KEY BLOCK``) and the SSH.com form with four dashes and a space.
PRIVATE_KEY_BLOCK = re.compile(
    r"BEGIN (?<=-----BEGIN |---- BEGIN )(?:[A-Z0-9]{1,16} ){0,4}(?:PRIVATE|SECRET) KEY"
)
#: A JWT: it opens a run (so "eyJ-eyJ-..." is read once) and its header is short (bounded); its
#: payload is not, so it is the one pattern read across a junction on whole runs of its characters.
JWT = re.compile(
    r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,512}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8}"
)
#: Every character a JWT match is made of.
JWT_CHARACTERS = string.ascii_letters + string.digits + "_.-"
#: Patterns read on the folded text. Each opens with a literal where it can, so that the
#: search skips to its occurrences, and tests what precedes it after it (a look-behind); a
#: body is read to the length that makes it a credential, not to its end.
PATTERNS = [
    PRIVATE_KEY_BLOCK,
    re.compile(r"PuTTY-User-Key-File-\d: "),
    re.compile(r"b3BlbnNzaC1rZXktdjE"),  # base64 of "openssh-key-v1": a key body without armour
    re.compile(r"A(?<![A-Za-z0-9]A)(?:KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|ROA)[0-9A-Z]{16}\b"),
    re.compile(r"gh[pousr]_[A-Za-z0-9]{36}"),
    re.compile(r"github_pat_[A-Za-z0-9_]{50}"),
    re.compile(r"gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20}"),
    re.compile(r"k_(?<=[sr]k_)(?:live|test)_[A-Za-z0-9]{16}"),
    re.compile(r"whsec_[A-Za-z0-9]{24}"),
    re.compile(r"xox[abeoprs]-[A-Za-z0-9-]{10}"),
    re.compile(r"xapp-\d-[A-Za-z0-9-]{10}"),
    re.compile(r"AIza[0-9A-Za-z_-]{35}"),
    re.compile(r"GOCSPX-[A-Za-z0-9_-]{20}"),
    re.compile(r"ya29\.[0-9A-Za-z_-]{20}"),
    # OpenAI, Anthropic and the like: the body holds a digit or capital ("sk-learn-..." does not)
    re.compile(r"sk-(?<![A-Za-z0-9_-]sk-)(?=[a-z_-]{0,20}+[A-Z0-9])[A-Za-z0-9_-]{20}"),
    re.compile(r"npm_[A-Za-z0-9]{36}"),
    re.compile(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{16}"),
    re.compile(r"hf_[A-Za-z0-9]{34}"),
    re.compile(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    re.compile(r"_v1_(?<=do[por]_v1_)[a-f0-9]{64}"),
    re.compile(r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    re.compile(r":AA(?<=[0-9]{8}:AA)[A-Za-z0-9_-]{33}"),  # a Telegram bot token
    # an .env line whose upper-case name ends in a word the pairs below do not name alone
    re.compile(r"_(?<=[A-Z0-9]_)(?:TOKEN|PASS|CREDENTIALS?)\s{0,4}=\s{0,4}['\"]?[^\s'\"]{4}"),
    # a URL with a password: read from "://" (every letter of "a.a.a..." no longer starts one)
    re.compile(r"://(?<=[A-Za-z0-9+.-]://)[^\s:/@]{1,256}:[^\s/@]{1,256}@"),
]
#: What makes a name's value a secret: ``name = value`` (or ``:``, ``:=``, ``=>``), quoted or not.
_ASSIGNED = r"['\"]?\s{0,16}(?:=>?|:=?)\s{0,16}['\"]?[^\s'\"]{4}"
#: Names of secrets: a root and what may follow it. A name may end a longer one joined by _ or -
#: (DB_PASSWORD=, AWS_SECRET_ACCESS_KEY=) but not a word (superpassword=).
_NAMES = {
    "pass": "(?:word|wd|phrase)",
    "pwd": "",
    "secret": "(?:[_-]?access)?(?:[_-]?(?:key|token))?",
    **dict.fromkeys(("api", "access", "private"), "[_-]?(?:key|token)"),
    **dict.fromkeys(("signing", "account", "master", "encryption", "client"), "[_-]?key"),
    **dict.fromkeys(("auth", "session", "refresh", "bearer"), "[_-]?token"),
}
_NAMED = [
    re.compile(rf"{root}(?<![a-z0-9]{root}){rest}{_ASSIGNED}") for root, rest in _NAMES.items()
]
#: A session cookie's value after its name.
_SESSION_VALUE = r"['\"]?\s{0,16}[=:]\s{0,16}['\"]?[^\s'\";]{8}"
#: Patterns read on the folded text in lower case (their names are any case).
LOWER_PATTERNS = [
    re.compile(r"bearer\s{1,16}[a-z0-9._~+/-]{16}"),
    re.compile(r"authorization\s{0,16}:\s{0,16}(?:basic|token)\s{1,16}[a-z0-9._~+/=-]{12}"),
    *_NAMED,
    # session cookies: a Cookie header, or a session cookie's usual name with its value
    re.compile(r"cookie\s{0,16}:\s{0,16}[^\s=;,:]{1,64}+=[^\s;,]{8}"),
    # (jsessionid, phpsessid, sessionid, session_id, session-cookie ...: "sess" leads, so that
    # the search skips to it; a leading alternation reads every s, p, j and c, 5 times slower)
    re.compile(rf"sess(?:(?<=phpsess)id|ion[_-]?(?:id|cookie)){_SESSION_VALUE}"),
    re.compile(rf"connect\.sid{_SESSION_VALUE}"),
    re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/[a-z0-9_/-]{16}"),
    re.compile(r"discord(?:app)?\.com/api/webhooks/[0-9]{5,32}/[a-z0-9_-]{20}"),
]

#: A run of exactly 40 base64 characters with both cases and a digit or ``+/``: the form of an
#: AWS secret access key (the look-aheads are bounded: linear).
_FORTY = re.compile(
    r"[A-Za-z0-9+/](?<![A-Za-z0-9+/][A-Za-z0-9+/])(?=[A-Za-z0-9+/]{0,38}[A-Z])"
    r"(?=[A-Za-z0-9+/]{0,38}[a-z])(?=[A-Za-z0-9+/]{0,38}[0-9+/])[A-Za-z0-9+/]{39}"
    r"(?![A-Za-z0-9+/=])"
)
_FORTY_LENGTH = 40
_BASE64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BASE64_SHAPE = bytes(b"x"[0] if byte in _BASE64 else b" "[0] for byte in range(256))
_FORTY_XS = b"x" * _FORTY_LENGTH
#: A capital, a small letter, and a digit or ``+/`` (``_FORTY``'s look-aheads).
_EVERY_CLASS = re.compile(r"(?=[^A-Z]*+[A-Z])(?=[^a-z]*+[a-z])(?=[^0-9+/]*+[0-9+/])")
#: Runs of one class: capitals, small letters, the rest.
_CLASS_RUNS = re.compile(r"[A-Z]+|[a-z]+|[^A-Za-z]+")
#: Character classes change this often in a random key (25 times on average, 12 or fewer about
#: once in 20,000 keys); a CamelCase identifier of 40 letters changes about 11 times.
_MIN_CLASS_CHANGES = 13


#: The longest match of a pattern read across a junction (a URL's userinfo: 3 + 256 + 1 + 256 +
#: 1, and its look-behind), and the farthest a pattern looks around a match (``_FORTY`` looks 39
#: characters ahead, the look-behinds at most 17 back):
#: tests/reference_impl/engram_memory/test_credentials.py measures both on the patterns.
LONGEST_MATCH = 520
LOOK_AROUND = 64
#: The characters of each neighbour read around a junction.
REACH = 2 * LONGEST_MATCH + LOOK_AROUND


def fold(text: str) -> str:
    """``text`` without format characters, NFKC-normalized (ASCII is left as it is)."""
    if text.isascii():
        return text
    if _FORMAT_FORMS.search(text.encode("utf-8", "surrogatepass")):
        text = text.translate(_DELETED)  # never slower than before: a sub costs more when dense
    return unicodedata.normalize("NFKC", text)


def carries_credential(texts: Iterable[str], fields: Iterable[str] = ()) -> bool:
    """Whether something that looks like a credential is in ``texts`` (each alone, or two
    neighbours run together: a capture's component texts, in order) or in ``fields`` (each
    alone)."""
    folded = [fold(text) for text in texts]
    alone = SEPARATOR.join([*folded, *(fold(field) for field in fields)])
    return _found(alone) or any(_across(first, second) for first, second in pairwise(folded))


def _found(text: str) -> bool:
    if JWT.search(text) or any(pattern.search(text) for pattern in PATTERNS):
        return True
    lowered = text.lower()
    return any(pattern.search(lowered) for pattern in LOWER_PATTERNS) or _bare_cloud_secret(text)


def _across(first: str, second: str) -> bool:
    """Whether a credential reads across the junction of two neighbours run together (what
    either holds alone is read alone)."""
    return _bounded_across(first, second) or _jwt_across(first, second)


def _jwt_across(first: str, second: str) -> bool:
    """Whether a JWT reads across the junction. Its payload is unbounded, but it is made of
    ``JWT_CHARACTERS`` only: such a JWT lies in the run of them that ends ``first`` and the run
    that begins ``second`` (its look-behind rejects only those characters: the run holds what
    it reads)."""
    start = len(first.rstrip(JWT_CHARACTERS))
    end = len(second) - len(second.lstrip(JWT_CHARACTERS))
    return JWT.search(first[start:] + second[:end]) is not None


def _bounded_across(first: str, second: str) -> bool:
    """Whether a credential of a bounded pattern (all but ``JWT``) reads across the junction.
    Only a window of ``REACH`` characters on each side is read. A match that begins or ends
    within ``LOOK_AROUND`` of a side cut short is left out (read without the text's context,
    it may be none), and cannot hide a match across the junction (``REACH`` is twice the
    longest match and more)."""
    window = first[-REACH:] + second[:REACH]
    lowered = window.lower()
    cut_before, cut_after = len(first) > REACH, len(second) > REACH

    def whole(match: re.Match[str]) -> bool:
        before = match.start() >= LOOK_AROUND or not cut_before
        return before and (match.end() <= len(match.string) - LOOK_AROUND or not cut_after)

    return (
        any(whole(match) for pattern in PATTERNS for match in pattern.finditer(window))
        or any(whole(match) for pattern in LOWER_PATTERNS for match in pattern.finditer(lowered))
        or any(whole(match) and _looks_random(match.group()) for match in _FORTY.finditer(window))
    )


def _bare_cloud_secret(text: str) -> bool:
    """Whether ``text`` holds a 40-character run that looks like a random AWS secret access
    key: classes (capitals, small letters, the rest) change often, and it is not base64 of text.
    A run repeated is judged once."""
    judged: set[str] = set()
    for run in _forty_runs(text):
        if run not in judged:
            if _looks_random(run):
                return True
            judged.add(run)
    return False


def _forty_runs(text: str) -> Iterator[str]:
    """What ``_FORTY`` matches in ``text``, found by byte searches: where each base64 character
    is an ``x`` and every other byte a blank, a run of 40 is where a search for 40 ``x`` stops
    (each ``_FORTY`` reads every character, 20 to 30 ms a megabyte; the searches skip)."""
    data = text.encode("utf-8", "surrogatepass")
    shape = data.translate(_BASE64_SHAPE)
    start = shape.find(_FORTY_XS)
    while start >= 0:
        end = shape.find(b" ", start)
        end = len(shape) if end < 0 else end
        if end - start == _FORTY_LENGTH and data[end : end + 1] != b"=":
            run = data[start:end].decode("ascii")
            if _EVERY_CLASS.match(run):
                yield run
        start = shape.find(_FORTY_XS, end)


def _looks_random(run: str) -> bool:
    changes = len(_CLASS_RUNS.findall(run)) - 1
    return changes >= _MIN_CLASS_CHANGES and not _encodes_text(run)


def _encodes_text(run: str) -> bool:
    """Whether ``run`` is base64 of printable text (an encoded sentence, not a key)."""
    try:
        decoded = base64.b64decode(run, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return decoded.isprintable()
