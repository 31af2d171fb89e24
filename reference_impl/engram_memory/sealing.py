"""Pending candidates sealed at rest: AES-256-GCM, one data key per candidate, master-key wrapped.

The master key lives in the state folder (``master.key``, mode 0600), or in a file of its own
elsewhere; one that others can read is refused (``at_rest``). It is created atomically: written to
a private temporary file, then linked into place, so that a crash leaves no half key behind and
two servers starting at once use one key. Destroying a candidate's
data key (withdraw, accept, reject) is deleting its wrapped copy: without it the ciphertext can
never be opened again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ..at_rest import create_whole, secret_file

MASTER_KEY_FILE = "master.key"
#: The associated data of the key check: what the master key seals to prove it is the state's.
_KEY_CHECK = b"engram-reference master key check"


class WrongKey(Exception):
    """The master key is missing, or is not the key of the state folder's sealed material."""


_KEY_BYTES = 32
_NONCE_BYTES = 12


@dataclass(frozen=True)
class Sealed:
    """What the store keeps of a pending candidate: no byte of it is plaintext."""

    nonce: bytes
    ciphertext: bytes
    wrapped_key: bytes


class Sealer:
    """Seals and opens candidate material bound to its candidate id (the AEAD associated data)."""

    def __init__(self, master_key: bytes) -> None:
        self._master = AESGCM(master_key)

    @classmethod
    def in_folder(cls, state_dir: Path, key_file: Path | None = None) -> Sealer:
        """The sealer of a state folder, with the master key ``key_file`` (default
        ``master.key`` in the folder), created (0600) on first use. A key file others can
        read, or that another user owns, raises ``at_rest.UnsafeState``; one that is not a key,
        ``ValueError``."""
        path = Path(key_file) if key_file is not None else Path(state_dir) / MASTER_KEY_FILE
        if not path.exists():
            create_whole(path, AESGCM.generate_key(bit_length=_KEY_BYTES * 8))
        secret_file(path, "master key")
        key = path.read_bytes()
        if len(key) != _KEY_BYTES:
            raise ValueError(f"{path} is not a {_KEY_BYTES}-byte key")
        return cls(key)

    def key_check(self) -> bytes:
        """A value only this master key opens (``opens_check``), kept in the state's database so
        that a start with another key, or with a new one after the key was lost, is refused."""
        nonce = os.urandom(_NONCE_BYTES)
        return nonce + self._master.encrypt(nonce, b"", _KEY_CHECK)

    def opens_check(self, value: bytes) -> bool:
        try:
            self._master.decrypt(value[:_NONCE_BYTES], value[_NONCE_BYTES:], _KEY_CHECK)
        except InvalidTag:
            return False
        return True

    def seal(self, candidate_id: str, plaintext: bytes) -> Sealed:
        data_key = AESGCM.generate_key(bit_length=_KEY_BYTES * 8)
        nonce, key_nonce = os.urandom(_NONCE_BYTES), os.urandom(_NONCE_BYTES)
        bound = candidate_id.encode()
        ciphertext = AESGCM(data_key).encrypt(nonce, plaintext, bound)
        wrapped = key_nonce + self._master.encrypt(key_nonce, data_key, bound)
        return Sealed(nonce=nonce, ciphertext=ciphertext, wrapped_key=wrapped)

    def open(self, candidate_id: str, sealed: Sealed) -> bytes:
        bound = candidate_id.encode()
        key_nonce, wrapped = sealed.wrapped_key[:_NONCE_BYTES], sealed.wrapped_key[_NONCE_BYTES:]
        data_key = self._master.decrypt(key_nonce, wrapped, bound)
        return AESGCM(data_key).decrypt(sealed.nonce, sealed.ciphertext, bound)
