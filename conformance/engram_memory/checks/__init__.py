"""The checks: one module per rule family, each check declaring the rules it decides.

``calls``, ``delivery``, ``answers``, ``state_files``, ``argument_examples``, ``argument_sending``
and ``lifecycle_steps`` are the kit the families share (with the core's ``bounded_search``); no
family module imports another.

Importing the package imports every family module (``families``), which registers their checks.
"""

from . import families  # noqa: F401 - imported for its registrations
