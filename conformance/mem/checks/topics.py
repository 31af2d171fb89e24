"""Topic keys (TOPIC): upserts by topic_key and mem_suggest_topic_key's keys.

No check yet: its helper fills this module in."""

from __future__ import annotations
