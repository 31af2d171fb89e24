"""Who holds the HTTP sessions, and which one gives way when a new client needs one.

The SDK caps open sessions and expires those idle for ``session_idle_s``, but at the cap it
refuses every new client (503): 64 ``initialize`` requests, kept alive, locked everyone else out.
``SessionKeeper``, an ASGI middleware in front of the SDK's app, keeps a ledger of the sessions
(``Sessions``) and, before a request opens one:

- ends the sessions past their time: idle (no request in flight) for ``session_idle_s``, or
  never used (no request after the one that opened them) for ``session_unused_s``;
- at the per-client cap (``max_client_sessions``, a client being its address), ends that
  client's least recently used idle session; at the server's cap, anyone's;
- refuses the new session (503) only when every session it could end is in use (a request in
  flight).

An open event stream (a ``GET``) does not keep its session in use: this server sends nothing
unasked on it, and a client could otherwise hold sessions for ever by leaving streams open
(attack round 4: 16 streams locked every local client out). Ending such a session ends its
stream.

A session is ended the way a client ends it, by a ``DELETE`` to the SDK's app.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_HEADER = "mcp-session-id"


@dataclass
class _Session:
    client: str
    last_seen: float
    in_flight: int = 0
    used: bool = False


class Full(Exception):
    """No session may open: every one that could give way is in use."""


@dataclass
class Sessions:
    """The ledger: each open session's client, last activity and requests in flight."""

    max_sessions: int
    max_client_sessions: int
    session_idle_s: float
    session_unused_s: float
    clock: Callable[[], float] = time.monotonic
    _open: dict[str, _Session] = field(default_factory=dict)
    #: sessions being opened, by client: counted against the caps until settled
    _opening: dict[str, int] = field(default_factory=dict)

    def expired(self) -> list[str]:
        """The sessions past their time, forgotten here; the caller ends them."""
        now = self.clock()
        gone = [sid for sid, session in self._open.items() if self._past(session, now)]
        for session_id in gone:
            del self._open[session_id]
        return gone

    def _past(self, session: _Session, now: float) -> bool:
        limit = self.session_idle_s if session.used else self.session_unused_s
        return session.in_flight == 0 and now - session.last_seen >= limit

    def reserve(self, client: str) -> str | None:
        """Room for a new session of ``client``: the session that gives way for it (forgotten
        here; the caller ends it), or None when there is room; ``Full`` when there is none.
        The reservation counts until ``settle``."""
        mine = [sid for sid, session in self._open.items() if session.client == client]
        if len(mine) + self._opening.get(client, 0) >= self.max_client_sessions:
            victim = self._least_recently_used(mine)
        elif len(self._open) + sum(self._opening.values()) >= self.max_sessions:
            victim = self._least_recently_used(list(self._open))
        else:
            victim = None
        if victim is not None:
            del self._open[victim]
        self._opening[client] = self._opening.get(client, 0) + 1
        return victim

    def _least_recently_used(self, candidates: list[str]) -> str:
        idle = [sid for sid in candidates if self._open[sid].in_flight == 0]
        if not idle:
            raise Full
        return min(idle, key=lambda sid: self._open[sid].last_seen)

    def settle(self, client: str, session_id: str | None) -> None:
        """End ``client``'s reservation: the session it opened, or None if it opened none."""
        self._opening[client] -= 1
        if not self._opening[client]:
            del self._opening[client]
        if session_id is not None:
            self._open[session_id] = _Session(client, self.clock())

    def begin(self, session_id: str, *, holds: bool = True) -> None:
        """A request of the session begins (an unknown session: nothing to keep); ``holds``:
        it keeps the session in use while in flight (an event stream does not)."""
        session = self._open.get(session_id)
        if session is not None:
            session.in_flight += holds
            session.used = True
            session.last_seen = self.clock()

    def end(self, session_id: str, *, closed: bool, held: bool = True) -> None:
        """The request is answered (``held``: it was counted in flight); ``closed``: it ended
        the session."""
        session = self._open.get(session_id)
        if session is None:
            return
        session.in_flight -= held
        session.last_seen = self.clock()
        if closed:
            del self._open[session_id]


class SessionKeeper:
    """ASGI middleware over the SDK's app: keeps ``Sessions`` and ends what must give way."""

    def __init__(self, app: ASGIApp, sessions: Sessions) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for session_id in self.sessions.expired():
            await self._end(scope, session_id)
        session_id = Headers(scope=scope).get(SESSION_HEADER)
        if session_id is not None:
            holds = scope["method"] != "GET"  # an event stream keeps no session in use
            self.sessions.begin(session_id, holds=holds)
            try:
                await self.app(scope, receive, send)
            finally:
                closed = scope["method"] == "DELETE"
                self.sessions.end(session_id, closed=closed, held=holds)
        elif scope["method"] == "POST":
            await self._open(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = (scope.get("client") or ("",))[0]
        try:
            victim = self.sessions.reserve(client)
        except Full:
            await Response("Too many open sessions", 503)(scope, receive, send)
            return
        opened: str | None = None
        if victim is not None:
            await self._end(scope, victim)

        async def noting(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400:
                opened = Headers(raw=message["headers"]).get(SESSION_HEADER)
            await send(message)

        try:
            await self.app(scope, receive, noting)
        finally:
            self.sessions.settle(client, opened)

    async def _end(self, scope: Scope, session_id: str) -> None:
        """End a session as its client would: a ``DELETE`` with its id (the answer dropped;
        one the SDK already ended answers 404)."""
        host = Headers(scope=scope).get("host", "")
        headers = [
            (b"host", host.encode("latin-1")),
            (SESSION_HEADER.encode(), session_id.encode()),
        ]
        deleting = {**scope, "method": "DELETE", "headers": headers, "query_string": b""}

        sent: list[Message] = [{"type": "http.disconnect"}, {"type": "http.request"}]

        async def nothing_more() -> Message:
            return sent.pop() if len(sent) > 1 else sent[0]

        async def dropped(message: Message) -> None:
            pass

        await self.app(deleting, nothing_more, dropped)
