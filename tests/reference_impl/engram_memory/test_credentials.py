"""The reference admission policy's credential detector (contract text section 4, PRIV-006),
and where admission runs it: before the write transaction (issue 12, findings 4 and 5)."""

from __future__ import annotations

import base64
import re
import re._constants as re_constants
import re._parser as re_parser
import sqlite3
import unicodedata
from collections.abc import Iterable
from itertools import pairwise

import pytest
from engram_conformance.reference_impl.engram_memory import credentials
from engram_conformance.reference_impl.engram_memory.credentials import carries_credential
from engram_conformance.reference_impl.engram_memory.store import DATABASE_FILE
from engram_conformance.reference_impl.engram_memory.tools import admission
from engram_conformance.strategies.engram_memory.credentials import fullwidth
from hypothesis import example, given, settings
from hypothesis import strategies as st

from .service_fixtures import Harness, capture_arguments, value_of

CREDENTIALS = {
    "rsa private key": "-----BEGIN RSA PRIVATE KEY-----",
    "pkcs8 private key": "-----BEGIN PRIVATE KEY-----",
    "encrypted private key": "-----BEGIN ENCRYPTED PRIVATE KEY-----",
    "openssh private key": "-----BEGIN OPENSSH PRIVATE KEY-----",
    "pgp private key block": "-----BEGIN PGP PRIVATE KEY BLOCK-----",
    "ssh.com private key": "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----",
    "openssh key body without armour": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    "putty key": "PuTTY-User-Key-File-2: ssh-rsa",
    "aws access key": "key AKIAIOSFODNN7EXAMPLE in the config",
    "aws session key": "ASIAY34FZKBOKMUTVV7A",
    "aws secret next to its name": "aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "bare aws secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "bearer token": "Authorization: Bearer eyJhbGciOi.abcdef123456",
    "bearer lower case": "bearer 0123456789abcdef0123",
    "basic authorization": "Authorization: Basic YWRtaW46aHVudGVyMmh1bnRlcjI=",
    "password pair": "password=hunter2",
    "password colon quoted": 'password: "correct-horse"',
    "json password": '{"user": "app", "password": "correct-horse"}',
    "passwd": "passwd = s3cr3t!",
    "pwd": "PWD=letmein",
    "go assignment": 'password := "s3cr3t!"',
    "ruby hash": "password => 's3cr3t!'",
    "secret pair": "secret: abcd1234",
    "env password": "DB_PASSWORD=correct-horse",
    "env token": "export DEPLOY_TOKEN=abcdef0123456789",
    "prefixed secret": "client_secret: abcd1234",
    "aws secret access key": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
    "secret key": 'SECRET_KEY = "django-insecure-abc"',
    "prefixed api key": "STRIPE_API_KEY=rk_live_abcdef",
    "api key pair": "api_key=AbCdEf123456",
    "api-key pair": "X-API-KEY: 0123456789",
    "access token pair": "access_token=ya29.a0AfH6SM",
    "auth token pair": "AUTH-TOKEN: tok_live_123",
    "azure account key": "AccountName=x;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;",
    "cookie header": "Cookie: sessionid=9f8e7d6c5b4a39281706; theme=dark",
    "set-cookie header": "Set-Cookie: __Host-sid=a1b2c3d4e5f6a7b8; Secure; HttpOnly",
    "java session id": "JSESSIONID=1A2B3C4D5E6F7A8B9C0D",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "github token": "ghp_" + "a1B2c3D4e5" * 4,
    "github app token": "ghs_" + "Z9y8X7w6V5" * 4,
    "github fine-grained token": "github_pat_11ABCDEFG0" + "a1B2c3D4e5" * 7 + "_xyz",
    "gitlab token": "glpat-" + "a1B2c3D4e5" * 2,
    "stripe live key": "sk_live_" + "a1B2c3D4e5" * 3,
    "stripe restricted key": "rk_live_" + "a1B2c3D4e5" * 3,
    "stripe webhook secret": "whsec_" + "a1B2c3D4e5" * 3,
    "slack token": "xoxb-123456789012-abcdefghijkl",
    "slack webhook": "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx",
    "discord webhook": "https://discord.com/api/webhooks/123456789012345678/" + "aB3-" * 12,
    "google api key": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "google oauth secret": "GOCSPX-" + "a1B2c3D4e5" * 3,
    "openai-style key": "sk-proj-" + "a1B2c3D4e5" * 4,
    "anthropic-style key": "sk-ant-api03-" + "a1B2c3D4e5" * 5,
    "npm token": "npm_" + "a1B2c3D4e5" * 4,
    "hugging face token": "hf_" + "a1B2c3D4e5" * 4,
    "sendgrid key": "SG." + "a1B2c3D4e5_" * 2 + "." + "a1B2c3D4e5-" * 4,
    "postgres url with password": "postgres://app:hunter2@db.internal:5432/main",
    "redis url with password": "redis://default:p4ss@cache:6379",
}

#: Ordinary text a detector must let through: a false alarm would reject a clean capture.
PROSE = {
    "password policy": "the password policy requires 12 characters",
    "rotate api keys": "Rotate the API key every 90 days and store it in the vault.",
    "secret management": "Secrets are managed by the platform team; never paste them here.",
    "bearer scheme": "Clients use the bearer scheme described in RFC 6750.",
    "token bucket": "The rate limiter is a token bucket with 100 tokens.",
    "url without password": "See https://example.org/docs/auth and postgres://db.internal/main",
    "user at host": "ssh deploy@build-01 runs the job",
    "public key": "-----BEGIN PUBLIC KEY-----",
    "pgp public key": "-----BEGIN PGP PUBLIC KEY BLOCK-----",
    "certificate": "-----BEGIN CERTIFICATE-----",
    "short password value": "password: abc",
    "key-like words": "AKIA is the prefix of AWS access keys",
    "sk prefix": "the sk-learn package and the task-runner",
    "sk words": "sk-learn-compatible-estimators are fine",
    "sha256 digest": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "git commit": "fixed in 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
    "upper-case sha1": "3F9A8B7C6D5E4F3A2B1C0D9E8F7A6B5C4D3E2F1A",
    "uuid": "550e8400-e29b-41d4-a716-446655440000 and 550E8400-E29B-41D4-A716-446655440000",
    "base64 of words": base64.b64encode(b"the quick brown fox jumps over").decode(),
    "record id": "mem_abcdefghijklmnopqrstuvwxyz234567abcdefgh",
    "candidate id": "cand_abcdefghijklmnopqrstuvwxyz234567",
    "camel-case identifier": "AbstractSingletonProxyFactoryBeanHandler",
    "name inside a word": "mysecret: abcd and superpassword=xyz1",
    "password-named setting": "password_policy: strict",
    "primary key": "PRIMARY_KEY=tenant_id and SORT_KEY=created_at",
    "cookie prose": "cookie: chocolate chip",
    "fullwidth prose": fullwidth("password policy"),
    "empty": "",
}


@pytest.mark.parametrize("text", CREDENTIALS.values(), ids=CREDENTIALS.keys())
def test_credentials_are_detected(text: str) -> None:
    assert carries_credential([text])
    assert carries_credential(["clean text", f"embedded in prose: {text} (see above)"])


@pytest.mark.parametrize("text", PROSE.values(), ids=PROSE.keys())
def test_ordinary_prose_is_clean(text: str) -> None:
    assert not carries_credential([text])
    assert not carries_credential([], fields=[text])


def test_all_texts_are_read() -> None:
    assert not carries_credential([])
    assert carries_credential(["clean", "clean", "password=hunter2"])
    assert carries_credential(iter(["clean", "password=hunter2"]))
    assert carries_credential(["clean"], fields=["source:password=hunter2"])


@pytest.mark.parametrize(
    "text",
    [
        "pass\u200bword=hun\u200cter2",  # zero-width space and non-joiner
        "AK\u2060IAIOSFODNN7EXA\ufeffMPLE",  # word joiner, byte order mark
        "-----BEGIN PGP PRI\u00adVATE KEY BLOCK-----",  # soft hyphen
        fullwidth("password=hunter2"),
        fullwidth("ghp_" + "a1B2c3D4e5" * 4),
        "password\u3000=\u00a0hunter2",  # ideographic and no-break spaces
    ],
)
def test_evasions_are_folded_away(text: str) -> None:
    """Format characters are removed and the text NFKC-normalized before it is read."""
    assert carries_credential([text])


@pytest.mark.parametrize(
    "parts",
    [
        ["password=", "hunter2"],
        ["pass", "word=hunter2"],
        ["Authorization: Bearer ", "abcdefghijklmnop0123"],
        ["AKIAIOSF", "ODNN7EXAMPLE"],
        ["postgres://app:", "hunter2@db/main"],
    ],
)
def test_a_credential_split_between_texts_is_seen(parts: list[str]) -> None:
    assert carries_credential(parts)
    assert carries_credential(["clean", *parts, "clean"])


def test_fields_are_read_alone_not_run_together() -> None:
    """Opaque references are not prose: two that end and begin a pair are no credential."""
    assert not carries_credential([], fields=["ref:password", "=ref:hunter2"])
    assert not carries_credential(["password"], fields=[":hunter2"])


#: Credentials as long as the bounded patterns read.
AT_THE_BOUNDS = [
    "x" * 31 + "://user:pass@host",  # the longest scheme the detector reads
    "postgres://" + "u" * 256 + ":" + "p" * 256 + "@db",  # the longest userinfo parts
    "eyJ" + "h" * 509 + ".eyJpayload01.signature01",  # a JWT header at its bound
    "-----BEGIN " + "ABCDEFGHIJKLMNOP " * 4 + "PRIVATE KEY-----",  # four words of 16
    "password" + " " * 16 + "=" + " " * 16 + "hunter2",  # the most spaces around it
]


@pytest.mark.parametrize("text", AT_THE_BOUNDS)
def test_the_bounded_patterns_still_see_credentials_at_their_bounds(text: str) -> None:
    """The patterns are bounded so that they run in linear time (issue 12, finding 4;
    figures in benchmarks/bench_credentials.py); credentials within the bounds are still seen."""
    assert carries_credential([text])


def _widths(pattern: re.Pattern[str]) -> tuple[int, int]:
    """The longest match of ``pattern``, and the longest text any of its look-arounds reads."""
    tree = re_parser.parse(pattern.pattern, pattern.flags)
    look = 0
    pending = [tree]
    while pending:
        for operation, argument in pending.pop().data:
            if operation in (re_constants.ASSERT, re_constants.ASSERT_NOT):
                look = max(look, argument[1].getwidth()[1])
            pending.extend(
                item for item in _nested(argument) if isinstance(item, re_parser.SubPattern)
            )
    return tree.getwidth()[1], look


def _nested(argument: object) -> list[object]:
    if isinstance(argument, re_parser.SubPattern):
        return [argument]
    if isinstance(argument, tuple | list):
        return [inner for item in argument for inner in _nested(item)]
    return []


@pytest.mark.parametrize(
    "pattern",
    [*credentials.PATTERNS, *credentials.LOWER_PATTERNS, credentials._FORTY],
    ids=lambda pattern: pattern.pattern[:24],
)
def test_what_is_read_across_a_junction_is_bounded_as_the_window_needs(
    pattern: re.Pattern[str],
) -> None:
    longest, look = _widths(pattern)
    assert longest <= credentials.LONGEST_MATCH
    assert look <= credentials.LOOK_AROUND


def test_the_jwt_is_unbounded_so_it_is_read_on_whole_neighbours() -> None:
    assert _widths(credentials.JWT)[0] > credentials.REACH
    payload = "eyJ" + "p" * 2 * credentials.REACH
    assert carries_credential(
        ["eyJhbGciOiJIUzI1NiJ9." + payload[:5000], payload[5000:] + ".sig12345"]
    )


_JWT_PIECES = st.sampled_from(["eyJ", "eyJhbGciOi", "abcdefgh", ".", "-", "x", " ", "é", "\n"])


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(st.lists(_JWT_PIECES, max_size=16).map("".join), st.lists(_JWT_PIECES, max_size=16))
def test_a_jwt_across_a_junction_is_read_on_the_runs_of_its_characters(
    first: str, second_pieces: list[str]
) -> None:
    """A JWT in two neighbours run together is in one of them alone or in the runs of JWT
    characters around their junction (read without running whole neighbours together)."""
    second = "".join(second_pieces)
    together = credentials.JWT.search(first + second) is not None
    apart = credentials.JWT.search(first) or credentials.JWT.search(second)
    assert together == bool(apart or credentials._jwt_across(first, second))


def _pairs_read_whole(texts: list[str]) -> bool:
    """The detector as it read neighbours before windows: every pair run together, whole."""
    folded = [credentials.fold(text) for text in texts]
    whole = credentials.SEPARATOR.join(folded)
    together = credentials.SEPARATOR.join(first + second for first, second in pairwise(folded))
    return credentials._found(whole) or credentials._found(together)


_PIECES = st.sampled_from([*CREDENTIALS.values(), *AT_THE_BOUNDS, *PROSE.values()])
_FILLER = st.sampled_from(["a", " ", "x1", "Ab/", "é", "=", "-"])


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    before=st.integers(0, 3 * credentials.REACH),
    after=st.integers(0, 3 * credentials.REACH),
    filler=_FILLER,
    piece=_PIECES,
    cuts=st.lists(st.floats(-0.2, 1.2), min_size=1, max_size=3),
)
@example(before=9, after=9, filler="a", piece=AT_THE_BOUNDS[1], cuts=[0.03])  # the longest match
@example(before=9, after=9, filler="a", piece=AT_THE_BOUNDS[1], cuts=[0.97])  # cut at each end
def test_windows_across_junctions_read_what_whole_neighbours_read(
    before: int, after: int, filler: str, piece: str, cuts: list[float]
) -> None:
    """Texts cut anywhere in and around a credential (or prose) in a long filler."""
    text = filler * before + piece + filler * after
    places = sorted({min(max(0, before + round(cut * len(piece))), len(text)) for cut in cuts})
    texts = [text[start:end] for start, end in pairwise([0, *places, len(text)])]
    assert carries_credential(texts) == _pairs_read_whole(texts)


# admission: the scan runs before the write transaction -------------------------------------


def _scanner_checking(harness: Harness, seen: list[bool]) -> object:
    """The real detector, first recording whether another connection can take the write lock
    of the state's database (``BEGIN IMMEDIATE`` with no wait)."""

    def scan(texts: Iterable[str], fields: Iterable[str] = ()) -> bool:
        other = sqlite3.connect(harness.state_dir / DATABASE_FILE, timeout=0)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            seen.append(True)
        except sqlite3.OperationalError:  # database is locked
            seen.append(False)
        finally:
            other.close()
        return carries_credential(texts, fields)

    return scan


@pytest.mark.parametrize(
    ("text", "status"), [("clean note", "accepted"), ("password=hunter2", "rejected")]
)
def test_the_scan_does_not_hold_the_write_lock(
    harness: Harness, monkeypatch: pytest.MonkeyPatch, text: str, status: str
) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(admission, "carries_credential", _scanner_checking(harness, seen))
    candidate_id = harness.pending(text=text)
    assert value_of(harness.admit(candidate_id))["outcome"]["status"] == status
    assert seen == [True], "the scan ran once, while another connection could write"


def test_a_candidate_that_changed_after_the_scan_is_decided_on_what_it_is_now(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Withdrawn between the scan and the transaction: ILLEGAL_TRANSITION, as before."""
    candidate_id = harness.pending(text="clean note")

    def withdraw_meanwhile(texts: Iterable[str], fields: Iterable[str] = ()) -> bool:
        value_of(harness.withdraw(candidate_id))
        return False

    monkeypatch.setattr(admission, "carries_credential", withdraw_meanwhile)
    answer = harness.admit(candidate_id)
    assert answer["ok"] is False and answer["error"]["code"] == "ILLEGAL_TRANSITION"


def test_a_replay_is_answered_whatever_the_scan(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    candidate_id = harness.pending(text="clean note")
    key = harness.key("admit")
    first = value_of(harness.admit(candidate_id, key=key))
    monkeypatch.setattr(credentials, "fold", lambda text: "password=hunter2")
    assert value_of(harness.admit(candidate_id, key=key)) == {**first, "replayed": True}


def test_components_and_attestation_are_read_run_together(harness: Harness) -> None:
    arguments = capture_arguments(harness.key(), texts=["note password=", "hunter2"])
    candidate_id = value_of(harness.capture(arguments))["candidate_id"]
    assert value_of(harness.admit(candidate_id))["outcome"]["status"] == "rejected"
    arguments = capture_arguments(harness.key(), texts=["note pass"], attestation="word=hunter2")
    candidate_id = value_of(harness.capture(arguments))["candidate_id"]
    assert value_of(harness.admit(candidate_id))["outcome"]["status"] == "rejected"


_FOLDED_ALPHABET = st.sampled_from(
    [
        *sorted(credentials.FORMAT_CHARACTERS),
        "a",
        "\uff21",
        "é",
        "e\u0301",
        "\ud800",
        "\ufb01",
        "\x00",
    ]
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_FOLDED_ALPHABET, max_size=40).map("".join))
def test_folding_removes_every_format_character_then_normalizes(text: str) -> None:
    deleted = text.translate(dict.fromkeys(map(ord, credentials.FORMAT_CHARACTERS)))
    assert credentials.fold(text) == unicodedata.normalize("NFKC", deleted)


_RUN_ALPHABET = st.sampled_from(["A", "b", "7", "+", "/", "=", " ", "é", "\ud800", "AbCd1234"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_RUN_ALPHABET, max_size=60).map("".join))
@example("AbCd1234" * 5 + "=")  # padding after: no run of 40
@example(" " + "AbCd1234" * 5 + " é")
def test_runs_of_forty_are_found_as_the_pattern_finds_them(text: str) -> None:
    assert list(credentials._forty_runs(text)) == credentials._FORTY.findall(text)


#: The session cookie names as one alternation, before "sess" led them (issue 23): the two
#: literal-led patterns that replaced it must find a cookie in exactly the texts it did.
_SESSION_NAMES_AS_ONE = re.compile(
    r"(?:jsessionid|phpsessid|sessionid|connect\.sid|session[_-]?(?:id|cookie))"
    r"['\"]?\s{0,16}[=:]\s{0,16}['\"]?[^\s'\";]{8}"
)
_SESSION_NAMES = ["j", "php", "sess", "ion", "id", "_", "-", "cookie", "connect", ".sid", "x"]
_SESSION_PIECES = st.sampled_from(
    [*_SESSION_NAMES, "connect.sid", "session", "=", ": ", '"', " ", "abcdefgh", ";"]
)


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(st.lists(_SESSION_PIECES, max_size=12).map("".join))
def test_session_cookie_names_led_by_a_literal_find_what_the_alternation_found(text: str) -> None:
    led = [
        pattern
        for pattern in credentials.LOWER_PATTERNS
        if pattern.pattern.startswith(("sess(?:", r"connect\.sid"))
    ]
    assert len(led) == 2
    found = any(pattern.search(text) for pattern in led)
    assert found == (_SESSION_NAMES_AS_ONE.search(text) is not None)
