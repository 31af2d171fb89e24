"""The six tools' names, for code that calls them by name."""

SEARCH = "engram_memory_search"
GET = "engram_memory_get"
CAPTURE = "engram_memory_capture"
ADMIT = "engram_memory_request_admission"
WITHDRAW = "engram_memory_withdraw"
FORGET = "engram_memory_forget"
