"""Report writers: the JSON report document rendered to JUnit XML, Markdown, HTML and SARIF.

``ReportDocument`` is the report of one run (``load`` reads and validates a report.json);
``write_reports`` writes the report folder (``write_reports_as_built`` also keeps a document that
breaks its schema, a bug of the kit, as built). The renderers ``junit``, ``markdown``, ``html`` and
``sarif`` each turn a document, and nothing else, into text; ``text`` words a rule's verdict and
evidence as plain text, for them and for the harness's terminal and pytest plugin.
"""

from ._schema import SCHEMA_ID, InvalidReport, schema
from .document import (
    COUNTED_ORDER,
    CallRecord,
    CheckTiming,
    ConformanceInfo,
    CutArguments,
    ErrorRecord,
    FailureRecord,
    Kit,
    ProtocolInfo,
    ReportDocument,
    RuleRecord,
    RunInfo,
    RunTiming,
    ServerInfo,
    ShardInfo,
    SpecIdentity,
    TargetInfo,
    Timing,
    Verdict,
    load,
    tally,
    validate,
    worst,
)
from .writer import replace_file, write_reports, write_reports_as_built

__all__ = [
    "COUNTED_ORDER",
    "SCHEMA_ID",
    "CallRecord",
    "CheckTiming",
    "ConformanceInfo",
    "CutArguments",
    "ErrorRecord",
    "FailureRecord",
    "InvalidReport",
    "Kit",
    "ProtocolInfo",
    "ReportDocument",
    "RuleRecord",
    "RunInfo",
    "RunTiming",
    "ServerInfo",
    "ShardInfo",
    "SpecIdentity",
    "TargetInfo",
    "Timing",
    "Verdict",
    "load",
    "replace_file",
    "schema",
    "tally",
    "validate",
    "worst",
    "write_reports",
    "write_reports_as_built",
]
