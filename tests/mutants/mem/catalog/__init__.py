"""The mem contract's mutant catalogue: one module per family, holding the mutants and no test.

Each module lists its mutants with what each breaks (``caught.Caught``); the family's test,
``tests/mutants/mem/test_<family>_mutants.py``, parametrizes over that list, runs the harness
against each mutant and asserts it caught (``caught.assert_caught``). How a mem mutant is built
and planted: ``tests/mutants/mem/seams.py``.
"""
