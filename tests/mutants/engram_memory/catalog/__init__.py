"""The engram-memory contract's mutant catalogue: one module per family, holding the mutants and
no test.

Each module lists its mutants with what each breaks (``caught.Caught``); the family's test,
``tests/mutants/engram_memory/test_<family>_mutants.py``, parametrizes over that list, runs the
harness against each mutant and asserts it caught (``caught.assert_caught``). How a mutant is
built and planted: ``tests/mutants/engram_memory/base.py``.
"""
