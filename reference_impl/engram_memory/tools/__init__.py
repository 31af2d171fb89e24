"""One module per tool; each handler takes a ``Call`` and returns the output value or refuses."""
