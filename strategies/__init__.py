"""Hypothesis strategies and lifecycle state machines generated from the spec."""
