"""What can go wrong while the harness drives a server, step by step.

- start: ``StartupFailed`` (the command cannot run, exits, or the URL never answers);
- initialize and every call: ``ServerFault`` (the connection broke, the server crashed, hung past
  the call timeout, or answered something that is not MCP); ``NoAnswerInTime``, a kind of it,
  when the call timeout passed and nothing else went wrong;
- descriptor reading: ``targets.descriptor.DescriptorError``;
- SIGTERM or Ctrl-C: ``Interrupted``, once the servers are stopped (``interruption``).
A ``ServerFault`` during a check makes that check's rules ``error`` with the evidence; it never
ends the run. Inside one case of a check (``BaseContext.case``) it is a failure of that case's
rules alone, and the check goes on while the server still answers. ``StartupFailed`` ends the
run with exit code 2.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass


@dataclass
class StartupFailed(Exception):
    """The server could not be started, or (``started`` False: a URL of a server the harness
    does not start) reached."""

    problem: str
    stderr_tail: str = ""
    started: bool = True

    def __str__(self) -> str:
        tail = (
            f"\n--- server stderr (last lines) ---\n{self.stderr_tail}" if self.stderr_tail else ""
        )
        what = "started" if self.started else "reached"
        return f"the server could not be {what}: {self.problem}{tail}"


class EraNotSpoken(StartupFailed):
    """The server would not speak the MCP era the run asked for (it refused the opening
    request with -32022, or agreed to the other era only)."""


@dataclass
class ServerFault(Exception):
    """The server crashed, hung or spoke garbage during a call."""

    problem: str

    def __str__(self) -> str:
        return self.problem


class NoAnswerInTime(ServerFault):
    """The server did not answer a call within the call time-out (or a timing rule's bound,
    ``Session.within``), and its transport saw no other cause (no end of output, no garbage).
    A timing rule reads it as a slow answer."""


@dataclass
class Interrupted(Exception):
    """The run was stopped by a signal; the servers it started are stopped."""

    signal_number: int

    def __str__(self) -> str:
        return f"interrupted by {signal.Signals(self.signal_number).name}"
