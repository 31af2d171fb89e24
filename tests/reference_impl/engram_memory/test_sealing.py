"""Pending candidates sealed at rest: AES-256-GCM data keys wrapped by the folder's master key."""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidTag
from engram_conformance.reference_impl.engram_memory.sealing import MASTER_KEY_FILE, Sealer

PLAINTEXT = b'{"payload":{"text":"pending canary 5f1c"}}'


def test_round_trip(tmp_path: Path) -> None:
    sealer = Sealer.in_folder(tmp_path)
    sealed = sealer.seal("cand_1", PLAINTEXT)
    assert sealer.open("cand_1", sealed) == PLAINTEXT


def test_sealed_material_holds_no_plaintext(tmp_path: Path) -> None:
    sealed = Sealer.in_folder(tmp_path).seal("cand_1", PLAINTEXT)
    for part in (sealed.nonce, sealed.ciphertext, sealed.wrapped_key):
        assert b"canary" not in part
    assert len(sealed.nonce) == 12
    assert len(sealed.wrapped_key) == 12 + 32 + 16


def test_every_seal_uses_a_fresh_data_key_and_nonce(tmp_path: Path) -> None:
    sealer = Sealer.in_folder(tmp_path)
    first, second = sealer.seal("cand_1", PLAINTEXT), sealer.seal("cand_1", PLAINTEXT)
    assert first.nonce != second.nonce
    assert first.ciphertext != second.ciphertext
    assert first.wrapped_key != second.wrapped_key


def test_material_is_bound_to_its_candidate_id(tmp_path: Path) -> None:
    sealer = Sealer.in_folder(tmp_path)
    sealed = sealer.seal("cand_1", PLAINTEXT)
    with pytest.raises(InvalidTag):
        sealer.open("cand_2", sealed)


def test_swapped_wrapped_keys_do_not_open(tmp_path: Path) -> None:
    sealer = Sealer.in_folder(tmp_path)
    first, second = sealer.seal("cand_1", PLAINTEXT), sealer.seal("cand_2", PLAINTEXT)
    with pytest.raises(InvalidTag):
        sealer.open("cand_1", replace(first, wrapped_key=second.wrapped_key))


@pytest.mark.parametrize("part", ["nonce", "ciphertext", "wrapped_key"])
def test_tampering_is_detected(tmp_path: Path, part: str) -> None:
    sealer = Sealer.in_folder(tmp_path)
    sealed = sealer.seal("cand_1", PLAINTEXT)
    original = getattr(sealed, part)
    tampered = original[:-1] + bytes([original[-1] ^ 1])
    with pytest.raises(InvalidTag):
        sealer.open("cand_1", replace(sealed, **{part: tampered}))


def test_master_key_file_is_private(tmp_path: Path) -> None:
    Sealer.in_folder(tmp_path)
    path = tmp_path / MASTER_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(path.read_bytes()) == 32


def test_master_key_mode_ignores_a_permissive_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        Sealer.in_folder(tmp_path)
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / MASTER_KEY_FILE).stat().st_mode) == 0o600


def test_reopening_the_folder_reuses_its_master_key(tmp_path: Path) -> None:
    sealed = Sealer.in_folder(tmp_path).seal("cand_1", PLAINTEXT)
    key = (tmp_path / MASTER_KEY_FILE).read_bytes()
    assert Sealer.in_folder(tmp_path).open("cand_1", sealed) == PLAINTEXT
    assert (tmp_path / MASTER_KEY_FILE).read_bytes() == key


def test_another_folder_cannot_open(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    sealed = Sealer.in_folder(tmp_path / "a").seal("cand_1", PLAINTEXT)
    with pytest.raises(InvalidTag):
        Sealer.in_folder(tmp_path / "b").open("cand_1", sealed)


@pytest.mark.parametrize("size", [0, 16, 31, 33])
def test_a_master_key_of_the_wrong_size_is_refused(tmp_path: Path, size: int) -> None:
    (tmp_path / MASTER_KEY_FILE).write_bytes(b"k" * size)
    (tmp_path / MASTER_KEY_FILE).chmod(0o600)
    with pytest.raises(ValueError, match="32-byte key"):
        Sealer.in_folder(tmp_path)
