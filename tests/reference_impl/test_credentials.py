"""The reference admission policy's credential detector (contract text section 4, PRIV-006)."""

from __future__ import annotations

import pytest
from engram_conformance.reference_impl.credentials import carries_credential

CREDENTIALS = {
    "rsa private key": "-----BEGIN RSA PRIVATE KEY-----",
    "pkcs8 private key": "-----BEGIN PRIVATE KEY-----",
    "encrypted private key": "-----BEGIN ENCRYPTED PRIVATE KEY-----",
    "openssh private key": "-----BEGIN OPENSSH PRIVATE KEY-----",
    "aws access key": "key AKIAIOSFODNN7EXAMPLE in the config",
    "aws session key": "ASIAY34FZKBOKMUTVV7A",
    "bearer token": "Authorization: Bearer eyJhbGciOi.abcdef123456",
    "bearer lower case": "bearer 0123456789abcdef0123",
    "password pair": "password=hunter2",
    "password colon quoted": 'password: "correct-horse"',
    "passwd": "passwd = s3cr3t!",
    "pwd": "PWD=letmein",
    "secret pair": "secret: abcd1234",
    "env password": "DB_PASSWORD=correct-horse",
    "prefixed secret": "client_secret: abcd1234",
    "aws secret access key": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
    "secret key": 'SECRET_KEY = "django-insecure-abc"',
    "prefixed api key": "STRIPE_API_KEY=rk_live_abcdef",
    "api key pair": "api_key=AbCdEf123456",
    "api-key pair": "X-API-KEY: 0123456789",
    "access token pair": "access_token=ya29.a0AfH6SM",
    "auth token pair": "AUTH-TOKEN: tok_live_123",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "github token": "ghp_" + "a1B2c3D4e5" * 4,
    "github app token": "ghs_" + "Z9y8X7w6V5" * 4,
    "slack token": "xoxb-123456789012-abcdefghijkl",
    "openai-style key": "sk-proj-abcdefghijklmnopqrstu",
    "postgres url with password": "postgres://app:hunter2@db.internal:5432/main",
    "redis url with password": "redis://default:p4ss@cache:6379",
}

PROSE = {
    "password policy": "the password policy requires 12 characters",
    "rotate api keys": "Rotate the API key every 90 days and store it in the vault.",
    "secret management": "Secrets are managed by the platform team; never paste them here.",
    "bearer scheme": "Clients use the bearer scheme described in RFC 6750.",
    "token bucket": "The rate limiter is a token bucket with 100 tokens.",
    "url without password": "See https://example.org/docs/auth and postgres://db.internal/main",
    "user at host": "ssh deploy@build-01 runs the job",
    "public key": "-----BEGIN PUBLIC KEY-----",
    "certificate": "-----BEGIN CERTIFICATE-----",
    "short password value": "password: abc",
    "key-like words": "AKIA is the prefix of AWS access keys",
    "sk prefix": "the sk-learn package and the task-runner",
    "base64 digest": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "name inside a word": "mysecret: abcd and superpassword=xyz1",
    "password-named setting": "password_policy: strict",
    "empty": "",
}


@pytest.mark.parametrize("text", CREDENTIALS.values(), ids=CREDENTIALS.keys())
def test_credentials_are_detected(text: str) -> None:
    assert carries_credential([text])
    assert carries_credential(["clean text", f"embedded in prose: {text} (see above)"])


@pytest.mark.parametrize("text", PROSE.values(), ids=PROSE.keys())
def test_ordinary_prose_is_clean(text: str) -> None:
    assert not carries_credential([text])


def test_all_texts_are_read() -> None:
    assert not carries_credential([])
    assert carries_credential(["clean", "clean", "password=hunter2"])
    assert carries_credential(iter(["clean", "password=hunter2"]))


@pytest.mark.parametrize(
    "text",
    [
        "x" * 31 + "://user:pass@host",  # the longest scheme the detector reads
        "postgres://" + "u" * 256 + ":" + "p" * 256 + "@db",  # the longest userinfo parts
        "eyJ" + "h" * 509 + ".eyJpayload01.signature01",  # a JWT header at its bound
    ],
)
def test_the_bounded_patterns_still_see_credentials_at_their_bounds(text: str) -> None:
    """The URL and JWT patterns are bounded so that they run in linear time (issue 12,
    finding 4; figures in benchmarks/bench_credentials.py); credentials within the bounds
    are still seen."""
    assert carries_credential([text])
