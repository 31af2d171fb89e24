"""The toy contract's one check, registered with the core's decorators."""

from __future__ import annotations

from typing import Any

from engram_conformance.conformance.check_context import BaseContext
from engram_conformance.conformance.check_registry import Check, PerCall, registrars

from .spec import ECHO

SCRIPTED: dict[str, Check] = {}
PER_CALL: dict[str, PerCall] = {}
check, per_call = registrars(SCRIPTED, PER_CALL, provoker="echo_answers_its_text")


class ToyContext(BaseContext):
    """A toy check's context: the shared one, and a call of the tool."""

    async def echo(self, text: str) -> Any:
        return await self.session.call(ECHO, {"text": text}, None, None)


@check(rules=("TOY-001",), tools=(ECHO,))
async def echo_answers_its_text(ctx: ToyContext) -> None:
    text = ctx.unique("echo")
    answer = await ctx.echo(text)
    ctx.require(answer.outcome == "result" and not answer.is_error, "toy_echo failed", answer)
    ctx.expect(
        "TOY-001", answer.text == text, expected=f"the text sent, {text!r}", observed=answer.text
    )
