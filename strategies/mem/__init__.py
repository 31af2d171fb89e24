"""Strategies of the mem contract: the lifecycle model of mem observations (``model``) and the
Hypothesis state machine that drives a server against it (``machine``, through a ``driver``)."""
