"""The host binding: the signed invocation context of a call, and the protocol checks it decides.

A host binds tenant, workspace, principal, purpose, deadline, confirmation... to each call in
``params._meta["engram/invocation"]``: a compact JWS, ``alg`` EdDSA (Ed25519), ``typ``
``engram-invocation+jwt``, whose claims the spec's binding schema describes (DESIGN.md, "Host
binding"). ``HostBinding`` verifies it with the host's public key and answers the first five
steps of DESIGN.md's order of checks; every later step is the memory service's.

A refusal is a protocol error, never an envelope: ``UnknownTool`` (-32602) or
``ContextUnavailable`` (-32603). Its ``reason`` is for the server's log; the wire carries only
the spec's constant message for the code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from engram_conformance.spec.engram_memory import (
    Spec,
    instant_ms,
    load,
    resolve_pointer,
    wall_clock_ms,
)

from ..at_rest import trusted_file
from .context import UNUSABLE_CONFIRMATION, Confirmation, InvocationContext

#: The longest lifetime a context may claim, ``exp - iat``, in seconds.
MAX_LIFETIME_S = 300
#: How far in the future ``iat`` may lie (clock skew between host and server), in milliseconds.
CLOCK_SKEW_MS = 5_000


class ProtocolRefusal(Exception):
    """A call refused before the memory service sees it: a JSON-RPC error of ``code``."""

    code: ClassVar[int]

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnknownTool(ProtocolRefusal):
    """The tool does not exist, or the context does not enable it (indistinguishable)."""

    code = -32602


class ContextUnavailable(ProtocolRefusal):
    """The context is missing or untrusted, or the call does not match what it binds."""

    code = -32603


class HostKeyError(ValueError):
    """The host public key file is not a PEM-encoded Ed25519 public key."""


def load_host_key(path: Path) -> Ed25519PublicKey:
    """The host's public key in ``path``; a file another user owns, or others may write, raises
    ``at_rest.UnsafeState`` (whoever can swap it can sign for the host)."""
    trusted_file(Path(path), "host public key")
    try:
        key = load_pem_public_key(Path(path).read_bytes())
    except ValueError as error:
        raise HostKeyError(f"{path} is not a PEM public key") from error
    if not isinstance(key, Ed25519PublicKey):
        raise HostKeyError(f"{path} holds a {type(key).__name__}, not an Ed25519 public key")
    return key


class HostBinding:
    """Verifies invocation contexts signed by the host whose Ed25519 public key it holds."""

    def __init__(
        self,
        public_key: Ed25519PublicKey,
        *,
        spec: Spec | None = None,
        clock: Callable[[], int] = wall_clock_ms,
    ) -> None:
        self.spec = spec or load()
        self._public_key = public_key
        self._clock = clock
        binding_schema = self.spec.schema(self.spec.contract["binding_schema"])
        self.meta_key: str = binding_schema["x-metaKey"]
        self._header: dict[str, str] = binding_schema["x-header"]
        self._claims_validator = self.spec.binding_validator()
        self._jws = jwt.PyJWS()

    def admit_call(
        self, tool: str, arguments: Any, meta: Mapping[str, Any] | None
    ) -> InvocationContext:
        """Steps 1 to 5 of the order of checks; the verified context when all pass."""
        if tool not in self.spec.tools:
            raise UnknownTool("no such tool")
        context = self.context(meta)
        if context is None:
            raise ContextUnavailable("the call carries no invocation context")
        if context.tool != tool:
            raise ContextUnavailable("the context names another tool")
        if context.tools is not None and tool not in context.tools:
            raise UnknownTool("the context does not enable this tool")
        purpose = sent_purpose(self.spec, tool, arguments)
        if purpose is not None and purpose != context.purpose_ref:
            raise ContextUnavailable("the purpose_ref argument differs from the bound purpose")
        if self.spec.tools[tool].confirmation == "always" and context.confirmation is None:
            raise ContextUnavailable("the context carries no confirmation")
        return context

    def listed_tools(self, meta: Mapping[str, Any] | None) -> list[str]:
        """The tools a ``tools/list`` answers: all, or those the context's ``tools`` enables."""
        context = self.context(meta)
        if context is None or context.tools is None:
            return list(self.spec.tools)
        return [name for name in self.spec.tools if name in context.tools]

    def context(self, meta: Mapping[str, Any] | None) -> InvocationContext | None:
        """The verified context of a request's ``_meta``; None when it carries none (or null)."""
        token = (meta or {}).get(self.meta_key)
        return None if token is None else self.verify(token)

    def verify(self, token: Any) -> InvocationContext:
        """The context a compact JWS binds, or ContextUnavailable. The ``tool`` claim is not
        checked here at all: ``admit_call`` compares it with the tool called (so a call whose
        context lacks it is refused), while ``tools/list`` takes any value (DESIGN.md, rulings)."""
        claims = self._verified_claims(token)
        errors = list(self._claims_validator.iter_errors({**claims, "tool": ""}))
        if any(list(error.absolute_path)[:1] != ["confirmation"] for error in errors):
            raise ContextUnavailable("the claims do not match the binding schema")
        issued_at_s, expires_at_s = int(claims["iat"]), int(claims["exp"])
        now_ms = self._clock()
        if expires_at_s - issued_at_s > MAX_LIFETIME_S:
            raise ContextUnavailable(f"the context claims to live more than {MAX_LIFETIME_S} s")
        if now_ms >= expires_at_s * 1000:
            raise ContextUnavailable("the context has expired")
        if issued_at_s * 1000 > now_ms + CLOCK_SKEW_MS:
            raise ContextUnavailable("the context is issued in the future")
        if errors:  # a confirmation present but malformed holds for no call (GATE-006)
            context = _context({**claims, "confirmation": None}, issued_at_s, expires_at_s)
            return replace(context, confirmation=UNUSABLE_CONFIRMATION)
        return _context(claims, issued_at_s, expires_at_s)

    def _verified_claims(self, token: Any) -> dict[str, Any]:
        if not isinstance(token, str):
            raise ContextUnavailable("the context is not a string")
        try:
            jws = self._jws.decode_complete(
                token, self._public_key, algorithms=[self._header["alg"]]
            )
            claims = json.loads(jws["payload"])
        except (jwt.PyJWTError, ValueError) as error:
            # ValueError covers a payload that is not JSON and a token that is not ASCII.
            raise ContextUnavailable(f"not a verifiable JWS ({type(error).__name__})") from error
        if any(jws["header"].get(name) != value for name, value in self._header.items()):
            raise ContextUnavailable("the JWS header is not the profile's alg and typ")
        if not isinstance(claims, dict):
            raise ContextUnavailable("the JWS payload is not a JSON object")
        return claims


def sent_purpose(spec: Spec, tool: str, arguments: Any) -> str | None:
    """The purpose the arguments name, when they name one as a string (else the schema decides)."""
    pointer = spec.tools[tool].purpose_argument
    try:
        value = resolve_pointer(arguments, pointer) if pointer is not None else None
    except LookupError:
        return None
    return value if isinstance(value, str) else None


def _context(claims: dict[str, Any], issued_at_s: int, expires_at_s: int) -> InvocationContext:
    """The schema-valid claims as a context; an optional claim that is null counts as absent."""
    deadline = claims.get("deadline")
    tools = claims.get("tools")
    confirmation = claims.get("confirmation")
    return InvocationContext(
        tenant=claims["tenant"],
        workspace=claims["workspace"],
        principal=claims["principal"],
        agent_id=claims["agent_id"],
        session=claims["session"],
        purpose_ref=claims["purpose_ref"],
        audit_id=claims["audit_id"],
        tool=claims["tool"] if isinstance(claims.get("tool"), str) else None,
        issued_at_s=issued_at_s,
        expires_at_s=expires_at_s,
        deadline_ms=None if deadline is None else instant_ms(deadline),
        cancellation_ref=claims.get("cancellation_ref"),
        tools=None if tools is None else frozenset(tools),
        confirmation=None if confirmation is None else _confirmation(confirmation),
    )


def _confirmation(claim: dict[str, Any]) -> Confirmation:
    return Confirmation(
        ref=claim["ref"],
        capability=claim["capability"],
        target=claim["target"],
        operation_digest=claim["operation_digest"],
        approved_at_ms=instant_ms(claim["approved_at"]),
        expires_at_ms=instant_ms(claim["expires_at"]),
    )
