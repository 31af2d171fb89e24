"""A catalogue of credentials that must never be stored (contract text, section 4).

Every form the section names (secrets, credentials, tokens, API and signing keys, passwords,
connection strings, ``.env`` values, session cookies, the host's own binding credential) is here
as one or more kinds, each a maker of the credential's text from a random source. ``CATALOGUE``
holds one deterministic example of each kind, then evasions of some: format characters inserted
(zero-width spaces, joiners, soft hyphens), fullwidth forms (NFKC folds them back) and a pair
split over two components. A ``Credential`` gives the component texts of a capture that carries
it, with the marker word that a check searches for afterwards (it must never be found).

``credentials()`` draws variants: a random body in each kind's format, with or without an
evasion at drawn positions. ``lookalikes()`` draws clean texts that resemble credentials (prose
about passwords, digests, UUIDs, base64 of words, record ids): a detector must let them through.
Bodies come from a ``random.Random`` seeded by a drawn integer, so that every body looks random
(a shrunk ``AAAA...`` is not a key anyone would issue).
"""

from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

from ..sizes import Draw

ALNUM = string.ascii_letters + string.digits
BASE64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
#: Format characters (Unicode category Cf) that render as nothing.
INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")
#: The evasions a variant may use.
EVASIONS = ("none", "zero-width", "fullwidth", "split")


@dataclass(frozen=True)
class Kind:
    """One kind of credential: its name, the form of section 4 it is, and how its text is made."""

    name: str
    form: str
    make: Callable[[random.Random], str]


@dataclass(frozen=True)
class Credential:
    """A credential as a capture carries it: ``parts`` are component texts, in order (more
    than one when it is split over components)."""

    kind: str
    form: str
    parts: tuple[str, ...]
    evasion: str = "none"

    @property
    def label(self) -> str:
        return self.kind if self.evasion == "none" else f"{self.kind} ({self.evasion})"

    def texts(self, marker: str) -> list[str]:
        """The component texts of a capture carrying it; ``marker`` opens the first."""
        first, *rest = self.parts
        return [f"note {marker} {first}", *rest]


def seeded(seed: int | str) -> random.Random:
    """A reproducible source of bodies: fake credentials, so no cryptographic generator."""
    return random.Random(seed)  # noqa: S311


def body(source: random.Random, alphabet: str, size: int) -> str:
    return "".join(source.choice(alphabet) for _ in range(size))


def _pem(label: str, lead: str = "MII") -> Callable[[random.Random], str]:
    def make(source: random.Random) -> str:
        lines = "\n".join(lead + body(source, BASE64, 61) for _ in range(2))
        return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"

    return make


def _prefixed(prefix: str, alphabet: str, size: int) -> Callable[[random.Random], str]:
    return lambda source: prefix + body(source, alphabet, size)


def _jwt(header: str) -> Callable[[random.Random], str]:
    def make(source: random.Random) -> str:
        claims = f'{{"sub":"{body(source, ALNUM, 12)}","exp":{source.randrange(10**9, 2 * 10**9)}}}'
        encoded = (_b64url(header), _b64url(claims), body(source, URLSAFE, 43))
        return ".".join(encoded)

    return make


def _b64url(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _openssh(source: random.Random) -> str:
    key = "b3BlbnNzaC1rZXktdjEAAAAA" + body(source, BASE64, 46)
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{key}\n-----END OPENSSH PRIVATE KEY-----"


def _pgp(source: random.Random) -> str:
    armour = "\n".join("lQ" + body(source, BASE64, 62) for _ in range(2))
    return (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
        f"{armour}\n={body(source, BASE64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----"
    )


def _putty(source: random.Random) -> str:
    return (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n"
        f"Private-Lines: 1\n{body(source, BASE64, 44)}\n"
        f"Private-MAC: {body(source, HEX, 64)}"
    )


def _aws_secret(source: random.Random) -> str:
    return body(source, BASE64, 40)


def _basic(source: random.Random) -> str:
    pair = f"{body(source, string.ascii_lowercase, 8)}:{body(source, ALNUM, 14)}"
    return f"Authorization: Basic {base64.b64encode(pair.encode()).decode()}"


def _azure(source: random.Random) -> str:
    key = body(source, BASE64, 86) + "=="
    return (
        f"DefaultEndpointsProtocol=https;AccountName={body(source, string.ascii_lowercase, 10)};"
        f"AccountKey={key};EndpointSuffix=core.windows.net"
    )


def _password(source: random.Random) -> str:
    return body(source, ALNUM, 6) + source.choice("!-_.#") + body(source, ALNUM, 5)


def _pair(template: str) -> Callable[[random.Random], str]:
    return lambda source: template.format(_password(source))


def _slack_webhook(source: random.Random) -> str:
    return (
        f"https://hooks.slack.com/services/T{body(source, UPPER, 10)}/"
        f"B{body(source, UPPER, 10)}/{body(source, ALNUM, 24)}"
    )


def _discord_webhook(source: random.Random) -> str:
    hook = f"{source.randrange(10**17, 10**18)}/{body(source, URLSAFE, 68)}"
    return f"https://discord.com/api/webhooks/{hook}"


def _slack_token(source: random.Random) -> str:
    numbers = f"{source.randrange(10**11, 10**12)}-{source.randrange(10**12, 10**13)}"
    return f"xoxb-{numbers}-{body(source, ALNUM, 24)}"


def _fine_grained(source: random.Random) -> str:
    return f"github_pat_{body(source, ALNUM, 22)}_{body(source, ALNUM, 59)}"


def _cookie(template: str) -> Callable[[random.Random], str]:
    return lambda source: template.format(body(source, URLSAFE, 32))


KINDS = (
    Kind("private key", "signing key", _pem("PRIVATE KEY")),
    Kind("RSA private key", "signing key", _pem("RSA PRIVATE KEY")),
    Kind("EC private key", "signing key", _pem("EC PRIVATE KEY", "MHc")),
    Kind("encrypted private key", "signing key", _pem("ENCRYPTED PRIVATE KEY")),
    Kind("OpenSSH private key", "signing key", _openssh),
    Kind("PGP private key block", "signing key", _pgp),
    Kind("PuTTY private key", "signing key", _putty),
    Kind("AWS access key id", "API key", _prefixed("aws_access_key_id = AKIA", UPPER, 16)),
    Kind(
        "AWS secret access key",
        "secret",
        lambda source: f"aws_secret_access_key = {_aws_secret(source)}",
    ),
    Kind("bare AWS secret access key", "secret", _aws_secret),
    Kind("Google API key", "API key", _prefixed("AIza", URLSAFE, 35)),
    Kind("Google OAuth client secret", "secret", _prefixed("GOCSPX-", URLSAFE, 28)),
    Kind("Azure storage connection string", "connection string", _azure),
    Kind("bearer token", "token", _prefixed("Authorization: Bearer ", URLSAFE, 40)),
    Kind("basic authorization", "credential", _basic),
    Kind("JWT", "token", _jwt('{"alg":"HS256","typ":"JWT"}')),
    Kind("host binding token", "host binding credential", _jwt('{"alg":"EdDSA","typ":"JWT"}')),
    Kind("GitHub personal access token", "token", _prefixed("ghp_", ALNUM, 36)),
    Kind("GitHub OAuth token", "token", _prefixed("gho_", ALNUM, 36)),
    Kind("GitHub fine-grained token", "token", _fine_grained),
    Kind("GitLab personal access token", "token", _prefixed("glpat-", URLSAFE, 20)),
    Kind("Stripe live secret key", "API key", _prefixed("sk_live_", ALNUM, 24)),
    Kind("Stripe restricted key", "API key", _prefixed("rk_live_", ALNUM, 24)),
    Kind("Stripe webhook secret", "secret", _prefixed("whsec_", ALNUM, 32)),
    Kind("Slack bot token", "token", _slack_token),
    Kind("Slack webhook URL", "secret", _slack_webhook),
    Kind("Discord webhook URL", "secret", _discord_webhook),
    Kind("OpenAI API key", "API key", _prefixed("sk-proj-", URLSAFE, 48)),
    Kind("Anthropic API key", "API key", _prefixed("sk-ant-api03-", URLSAFE, 60)),
    Kind("npm token", "token", _prefixed("npm_", ALNUM, 36)),
    Kind("PyPI token", "token", _prefixed("pypi-AgEIcHlwaS5vcmc", URLSAFE, 50)),
    Kind("Hugging Face token", "token", _prefixed("hf_", ALNUM, 34)),
    Kind(
        "SendGrid API key",
        "API key",
        lambda source: f"SG.{body(source, URLSAFE, 22)}.{body(source, URLSAFE, 43)}",
    ),
    Kind("password pair", "password", _pair("password={}")),
    Kind("JSON password", "password", _pair('{{"user": "app", "password": "{}"}}')),
    Kind("passphrase", "password", _pair("passphrase: {}")),
    Kind("API key pair", "API key", _pair("api_key={}")),
    Kind("signing secret", "signing key", _pair("SIGNING_KEY={}")),
    Kind(
        "database URL with password", "connection string", _pair("postgres://app:{}@db:5432/main")
    ),
    Kind("MongoDB URL with password", "connection string", _pair("mongodb+srv://app:{}@c0.net/db")),
    Kind("ODBC connection string", "connection string", _pair("Server=db;User Id=app;Pwd={};")),
    Kind(".env password", ".env value", _pair("DB_PASSWORD={}")),
    Kind(".env token", ".env value", _prefixed("export DEPLOY_TOKEN=", ALNUM, 32)),
    Kind(".env SMTP password", ".env value", _pair("SMTP_PASS='{}'")),
    Kind("session cookie", "session cookie", _cookie("Cookie: sessionid={}; theme=dark")),
    Kind("Set-Cookie header", "session cookie", _cookie("Set-Cookie: __Host-sid={}; Secure")),
    Kind("session id pair", "session cookie", _cookie("JSESSIONID={}")),
)
_BY_NAME = {kind.name: kind for kind in KINDS}


def fullwidth(text: str) -> str:
    """``text`` with printable ASCII in its fullwidth forms (NFKC maps them back)."""
    return "".join(
        "\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text
    )


def interleaved(text: str, positions: list[int], characters: list[str]) -> str:
    """``text`` with ``characters[i]`` inserted before the character at ``positions[i]``."""
    out, last = [], 0
    for at, character in sorted(zip(positions, characters, strict=True)):
        out += [text[last:at], character]
        last = at
    return "".join([*out, text[last:]])


def _example(name: str) -> Credential:
    kind = _BY_NAME[name]
    return Credential(kind.name, kind.form, (kind.make(seeded(kind.name)),))


def _evaded(name: str, evasion: str, change: Callable[[str], tuple[str, ...]]) -> Credential:
    plain = _example(name)
    return Credential(plain.kind, plain.form, change(plain.parts[0]), evasion)


def _every(step: int) -> Callable[[str], tuple[str, ...]]:
    """Change: a zero-width character after every ``step`` characters."""
    return lambda text: (INVISIBLE[0].join(text[i : i + step] for i in range(0, len(text), step)),)


def _split_after(marker: str) -> Callable[[str], tuple[str, ...]]:
    """Change: split in two components just after ``marker``."""

    def change(text: str) -> tuple[str, ...]:
        at = text.index(marker) + len(marker)
        return text[:at], text[at:]

    return change


_EVASIONS = (
    ("password pair", "zero-width", _every(3)),
    ("AWS access key id", "zero-width", lambda t: (t.replace("AKIA", "AK\u200dIA\u00ad"),)),
    ("GitHub personal access token", "zero-width", _every(5)),
    ("PGP private key block", "zero-width", lambda t: (t.replace("PRIVATE", "PRI\u2060VATE"),)),
    ("JWT", "zero-width", lambda t: (t.replace(".", "\ufeff."),)),
    ("private key", "fullwidth", lambda t: (fullwidth(t),)),
    ("password pair", "fullwidth", lambda t: (fullwidth(t),)),
    ("Stripe live secret key", "fullwidth", lambda t: (fullwidth(t),)),
    ("Slack webhook URL", "fullwidth", lambda t: (fullwidth(t),)),
    ("bare AWS secret access key", "fullwidth", lambda t: (fullwidth(t),)),
    ("password pair", "split", _split_after("password=")),
    ("password pair", "split", _split_after("pass")),
    ("AWS secret access key", "split", _split_after("= ")),
    ("bearer token", "split", _split_after("Bearer ")),
    ("database URL with password", "split", _split_after("app:")),
    ("GitHub personal access token", "split", _split_after("ghp_")),
)

#: One example of every kind, then the evasions: the privacy checks capture each once.
CATALOGUE = (
    *(_example(kind.name) for kind in KINDS),
    *(_evaded(name, evasion, change) for name, evasion, change in _EVASIONS),
)
#: The credential a check uses when any one will do.
DEFAULT = _example("password pair")


@st.composite
def credentials(draw: Draw, kinds: tuple[Kind, ...] = KINDS) -> Credential:
    """A credential of a drawn kind with a random body, plain or with a drawn evasion."""
    kind = draw(st.sampled_from(kinds))
    text = kind.make(seeded(draw(st.integers(0, 2**32))))
    evasion = draw(st.sampled_from(EVASIONS))
    return Credential(kind.name, kind.form, _draw_evasion(draw, evasion, text), evasion)


def _draw_evasion(draw: Draw, evasion: str, text: str) -> tuple[str, ...]:
    if evasion == "zero-width":
        count = draw(st.integers(1, 4))
        positions = draw(st.lists(st.integers(0, len(text)), min_size=count, max_size=count))
        characters = draw(st.lists(st.sampled_from(INVISIBLE), min_size=count, max_size=count))
        return (interleaved(text, positions, characters),)
    if evasion == "fullwidth":
        return (fullwidth(text),)
    if evasion == "split":
        at = draw(st.integers(1, len(text) - 1))
        return text[:at], text[at:]
    return (text,)


def _record_id(source: random.Random) -> str:
    return "mem_" + body(source, "abcdefghijklmnopqrstuvwxyz234567", 32)


def _base64_words(source: random.Random) -> str:
    words = " ".join(source.choice(_WORDS) for _ in range(source.randrange(3, 12)))
    return base64.b64encode(words.encode()).decode()


_WORDS = ("the", "index", "ranking", "uses", "tenant", "record", "search", "policy", "review")

#: Clean texts that resemble credentials: each a maker from a random source.
LOOKALIKES: dict[str, Callable[[random.Random], str]] = {
    "prose about passwords": lambda s: "Rotate the password every 90 days; never share it.",
    "password policy": lambda s: f"the password policy requires {s.randrange(8, 20)} characters",
    "sha256 digest": lambda s: f"sha256:{hashlib.sha256(body(s, ALNUM, 9).encode()).hexdigest()}",
    "git commit": lambda s: body(s, HEX, 40),
    "upper-case git commit": lambda s: body(s, HEX, 40).upper(),
    "UUID": lambda s: str(uuid.UUID(int=s.getrandbits(128))),
    "upper-case UUID": lambda s: str(uuid.UUID(int=s.getrandbits(128))).upper(),
    "base64 of words": _base64_words,
    "record id": _record_id,
    "candidate id": lambda s: "cand_" + body(s, "abcdefghijklmnopqrstuvwxyz234567", 32),
    "public key": lambda s: "-----BEGIN PUBLIC KEY-----\nMIIB" + body(s, BASE64, 40),
    "certificate": lambda s: "-----BEGIN CERTIFICATE-----\nMIID" + body(s, BASE64, 40),
    "bearer scheme": lambda s: "Clients use the bearer scheme of RFC 6750 for every call.",
    "URL without password": lambda s: f"https://example.org/docs/{body(s, HEX, 8)}?page=2",
    "ssh user at host": lambda s: f"ssh deploy@build-{s.randrange(100)} runs the job",
    "sk- words": lambda s: "the sk-learn-compatible-estimators package and task-runner",
    "CamelCase identifier": lambda s: "AbstractSingletonProxyFactoryBeanHandler",
}


@st.composite
def lookalikes(draw: Draw) -> str:
    """A clean text that resembles a credential, from a drawn maker and random source."""
    make = draw(st.sampled_from(list(LOOKALIKES.values())))
    return make(seeded(draw(st.integers(0, 2**32))))
