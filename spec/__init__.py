"""The contracts as data, one sub-package per contract (``engram_memory``, ``mem``), beside what
they share: canonical JSON and digests (``canonical``), instants (``instants``), JSON Pointers
(``pointers``), reading a spec folder's JSON files (``json_files``), the loaded spec's common
part (``loaded``), lint problems (``problems``), rule fields (``rules``) and the docs pages'
Markdown tables (``markdown``)."""
