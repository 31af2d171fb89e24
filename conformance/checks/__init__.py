"""The checks: one module per rule family, each check declaring the rules it decides."""
