"""A toy contract, all in this package: one tool (``toy_echo``), one rule (TOY-001), one check,
a server and its mutant. ``test_toy_contract`` plugs it in with one registry entry."""
