"""The mem contract's checks: one module per rule family (``families`` imports them, which
registers their checks); ``registry`` holds them, ``context`` is what each check works with."""

from . import families  # noqa: F401 - imported for its registrations
