"""State at rest that nobody else can read: a folder of mode 0700, files of mode 0600.

The umask does not decide it (a permissive one would make the database world-readable), and a
folder or master key that others can already read or write is refused at start, not used: a key
others could read would let them open every pending candidate offline. So is a state folder or
file that another user owns, whatever its mode: its owner can read it, or widen its mode, at
any time.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

#: Permission bits of the group and others: none may be set on a state folder or key file.
SHARED_BITS = 0o077
#: Write bits of the group and others: none may be set on a file the server trusts.
WRITABLE_BY_OTHERS = 0o022
#: The files SQLite keeps beside a database, which take its mode when it makes them.
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


class UnsafeState(Exception):
    """A state folder or file that others than its owner can read or write, or that another
    user owns."""


def private_folder(path: Path) -> Path:
    """``path`` as a folder only its owner can use, created 0700 if missing (its parents as
    the umask makes them); one that exists and others can use raises ``UnsafeState``."""
    path = Path(path)
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:
        refuse_foreign(path, "state folder")
        refuse_shared(path, "state folder", "chmod 700")
        for entry in path.iterdir():  # a key, a token, a WAL another user put there
            refuse_foreign(entry, "state file")
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=0o700)  # the umask can only take bits away from 0700
    return path


def private_file(path: Path) -> None:
    """Create ``path`` (an SQLite database) empty with mode 0600 if it does not exist, whatever
    the umask: its WAL and shared-memory files then take the same mode. One that exists, or one
    of its side files, that another user owns, or that is a link (its target would be the
    state: attack round 6 saw a linked database's target outside the folder made 0600 and
    written) or no regular file, raises ``UnsafeState``; the running user's lose the group's
    and others' bits (a database copied in as 0644 gave its WAL 0644 too)."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for kept in (path, *(path.with_name(path.name + end) for end in SQLITE_SIDE_FILES)):
            if kept.is_symlink():
                raise UnsafeState(f"the state file {kept} is a link; refused") from None
            if kept.exists():
                refuse_irregular(kept, "state file")
                refuse_foreign(kept, "state file")
                _tighten(kept)
        return
    os.close(descriptor)


def _tighten(path: Path) -> None:
    """Take the group's and others' bits off a state file of the running user's: inside a 0700
    folder nobody else could use them, but the promise is 0600 files."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & SHARED_BITS:
        path.chmod(mode & ~SHARED_BITS)


def refuse_irregular(path: Path, what: str) -> None:
    """Raise ``UnsafeState`` when ``path`` (followed, if a link) is no regular file: reading a
    FIFO there would hold the server at its start with nothing said (attack round 6)."""
    if not stat.S_ISREG(path.stat().st_mode):
        raise UnsafeState(f"the {what} {path} is not a regular file; refused")


def refuse_foreign(path: Path, what: str) -> None:
    """Raise ``UnsafeState`` when another user than the one running owns ``path``."""
    owner, running = path.stat().st_uid, os.geteuid()
    if owner != running:
        raise UnsafeState(
            f"the {what} {path} belongs to another user (uid {owner}, not {running}); "
            "refused: use a state folder of your own"
        )


def secret_file(path: Path, what: str) -> None:
    """Raise ``UnsafeState`` for a secret (a key, a token) that another user owns or others
    than its owner may read or write, or that is no regular file."""
    refuse_irregular(path, what)
    refuse_foreign(path, what)
    refuse_shared(path, what, "chmod 600")


def trusted_file(path: Path, what: str) -> None:
    """Raise ``UnsafeState`` for a file the server trusts (a public key it verifies with)
    that another user owns or others than its owner may write (they could swap it), or that is
    no regular file."""
    refuse_irregular(path, what)
    refuse_foreign(path, what)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & WRITABLE_BY_OTHERS:
        raise UnsafeState(
            f"the {what} {path} can be written by others (mode {mode:04o}); "
            f"refused: `chmod go-w {path}` if it is yours"
        )


def refuse_shared(path: Path, what: str, remedy: str) -> None:
    """Raise ``UnsafeState`` when others than the owner may read or write ``path``."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & SHARED_BITS:
        raise UnsafeState(
            f"the {what} {path} can be used by others (mode {mode:04o}); "
            f"refused: `{remedy} {path}` if it is yours"
        )


def create_whole(path: Path, content: bytes) -> None:
    """``path`` created with ``content``, mode 0600, whole or not at all: written and synced in
    a private temporary file beside it, then linked into place; if another process linked its
    file first, that one stands."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileExistsError):  # another process's file came first
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
