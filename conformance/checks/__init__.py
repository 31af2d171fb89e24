"""The checks: one module per rule family, each check declaring the rules it decides.

Importing the package imports every family module (``families``), which registers their checks.
"""

from . import families  # noqa: F401 - imported for its registrations
