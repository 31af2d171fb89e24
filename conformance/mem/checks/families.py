"""Imports every family module so that their checks register, in the order they run."""

from . import discovery  # noqa: F401
