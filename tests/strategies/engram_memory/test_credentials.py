"""The credential catalogue: every form is one the reference detector rejects, every look-alike
one it lets through, and the variants keep their kind's credential (issue 12, finding 5)."""

from __future__ import annotations

import unicodedata

import pytest
from engram_conformance.reference_impl.engram_memory.credentials import carries_credential, fold
from engram_conformance.strategies.engram_memory.credentials import (
    CATALOGUE,
    EVASIONS,
    INVISIBLE,
    KINDS,
    LOOKALIKES,
    Credential,
    credentials,
    fullwidth,
    interleaved,
    lookalikes,
    seeded,
)
from hypothesis import given

from .profile import SETTINGS

#: The forms of the contract text's section 4, each of which the catalogue must hold.
SECTION_4 = {
    "secret",
    "credential",
    "token",
    "API key",
    "signing key",
    "password",
    "connection string",
    ".env value",
    "session cookie",
    "host binding credential",
}


@pytest.mark.parametrize("credential", CATALOGUE, ids=lambda credential: credential.label)
def test_every_catalogued_credential_is_detected(credential: Credential) -> None:
    assert carries_credential(credential.texts("markerword"))


def test_the_catalogue_holds_every_form_and_kind_with_evasions() -> None:
    assert {credential.form for credential in CATALOGUE} == SECTION_4
    assert {credential.kind for credential in CATALOGUE} == {kind.name for kind in KINDS}
    assert {credential.evasion for credential in CATALOGUE} == set(EVASIONS)
    assert len({credential.parts for credential in CATALOGUE}) == len(CATALOGUE)


def test_the_marker_stands_alone_in_the_first_text() -> None:
    credential = next(c for c in CATALOGUE if c.evasion == "split")
    first, second = credential.texts("markerword")
    assert first.split()[:2] == ["note", "markerword"]
    assert second == credential.parts[1]


@pytest.mark.parametrize("name", LOOKALIKES)
def test_the_lookalikes_are_clean(name: str) -> None:
    for seed in range(20):
        assert not carries_credential([LOOKALIKES[name](seeded(seed))])


@SETTINGS
@given(credentials())
def test_every_variant_is_detected(credential: Credential) -> None:
    assert carries_credential(credential.texts("markerword"))


@SETTINGS
@given(credentials())
def test_an_evasion_folds_back_to_its_kind(credential: Credential) -> None:
    """Folded (format characters removed, NFKC) and run together, a variant is a plain
    credential of its kind again: the evasion hides nothing from a detector that folds."""
    plain = fold("".join(credential.parts))
    assert plain.isascii()
    assert carries_credential([plain])


@SETTINGS
@given(lookalikes())
def test_every_lookalike_variant_is_clean(text: str) -> None:
    assert not carries_credential([text])


def test_the_evasions_are_what_they_say() -> None:
    assert fullwidth("a=1 b") == "\uff41\uff1d\uff11\u3000\uff42"
    assert unicodedata.normalize("NFKC", fullwidth("password=x")) == "password=x"
    assert interleaved("abc", [1, 3], ["\u200b", "\u2060"]) == "a\u200bbc\u2060"
    assert all(unicodedata.category(character) == "Cf" for character in INVISIBLE)
