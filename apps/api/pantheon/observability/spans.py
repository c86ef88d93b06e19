"""A finished span as plain data: what the trace observer builds and the exporter sends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

AttrValue = str | int | float | bool | list[str]


@dataclass(slots=True)
class SpanData:
    """One finished span, ready to export (times in ns since the epoch)."""

    name: str
    span_id: str
    parent_id: str | None
    start_ns: int
    end_ns: int
    attributes: dict[str, AttrValue] = field(default_factory=dict)
    error: str | None = None  # error.type; the span's status is ERROR when set
    kind: Literal["internal", "client"] = "internal"
