"""Pending candidates sealed at rest: AES-256-GCM, one data key per candidate, master-key wrapped.

The master key lives in the state folder (``master.key``, mode 0600). Destroying a candidate's
data key (withdraw, accept, reject) is deleting its wrapped copy: without it the ciphertext can
never be opened again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MASTER_KEY_FILE = "master.key"
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
    def in_folder(cls, state_dir: Path) -> Sealer:
        """The sealer of a state folder, creating its master key (0600) on first use."""
        path = Path(state_dir) / MASTER_KEY_FILE
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            key = path.read_bytes()
            if len(key) != _KEY_BYTES:
                raise ValueError(f"{path} is not a {_KEY_BYTES}-byte key") from None
            return cls(key)
        key = AESGCM.generate_key(bit_length=_KEY_BYTES * 8)
        with os.fdopen(descriptor, "wb") as file:
            file.write(key)
            file.flush()
            os.fsync(file.fileno())
        return cls(key)

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
