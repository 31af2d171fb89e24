"""The example database a fuzz campaign's workers share, named as ``fuzz --database`` names it:
``redis://HOST:PORT/N`` for Hypothesis' Redis backend (workers on several machines), anything
else a folder (workers on one machine).

Every worker opens the database from its name: a Redis client cannot cross a process boundary.
Whichever it is, it keeps no empty example (``WithoutEmptyExamples``), nor does the folder of
a run's own searches (``bounded_search.quiet_settings``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

REDIS_SCHEMES = ("redis", "rediss", "unix")


class WithoutEmptyExamples(ExampleDatabase):
    """``inner``, except that an empty example is never kept.

    A campaign's search (or a run's, at its budget) stops beginning examples at its bound, also
    while Hypothesis shrinks a failure: the machine then rejects its example before making any
    choice, where the same (shorter) choices made one before, and Hypothesis records the empty
    choice sequence as a failing example (``FlakyStrategyDefinition``). Kept, that entry is
    the first one the next search replays (the shortest), extended at random: a new example
    spent where a stored failure should have been replayed. A state machine's example always
    makes choices, so nothing real is lost.
    """

    def __init__(self, inner: ExampleDatabase) -> None:
        super().__init__()
        self.inner = inner

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.inner.fetch(key)

    def save(self, key: bytes, value: bytes) -> None:
        if value:
            self.inner.save(key, value)

    def delete(self, key: bytes, value: bytes) -> None:
        self.inner.delete(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if value:
            self.inner.move(src, dest, value)
        else:
            self.inner.delete(src, value)


class DatabaseUnusable(Exception):
    """The database cannot be used (the message says why, in one line)."""


def is_redis(name: str) -> bool:
    return urlsplit(name).scheme in REDIS_SCHEMES


def opened(name: str) -> ExampleDatabase:
    """The database ``name`` names: a Redis one (its server answered a ping) or a folder's
    (made if missing). DatabaseUnusable when the Redis server does not answer, the ``redis``
    package is missing, or the folder cannot be made."""
    if not is_redis(name):
        try:
            Path(name).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            problem = f"the database folder {name} cannot be made: {error.strerror or error}"
            raise DatabaseUnusable(problem) from None
        return WithoutEmptyExamples(DirectoryBasedExampleDatabase(Path(name)))
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError:
        raise DatabaseUnusable(
            "a Redis database needs the redis package: pip install 'engram-conformance[fuzz]'"
        ) from None
    try:
        client = redis.Redis.from_url(name)
        client.ping()
    except (redis.RedisError, ValueError) as error:
        raise DatabaseUnusable(f"the Redis database {name} does not answer: {error}") from None
    return WithoutEmptyExamples(RedisExampleDatabase(client))
