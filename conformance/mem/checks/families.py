"""Imports every family module so that their checks register (the runner runs discovery first)."""

from . import (  # noqa: F401
    dedupe,
    dedupe_window,
    deletes,
    discovery,
    errors,
    judging,
    model,
    passive,
    privacy,
    projects,
    recall,
    refusals,
    restart,
    saving,
    scopes,
    searching,
    sessions,
    topics,
    updates,
    writers,
)
