"""What a benchmark hands back: table rows (formatted) and the raw numbers (for JSON).

One shape for every benchmark, so the report can print one table, one JSON line per
benchmark, and a goals summary without knowing what each benchmark measures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the results table: Pantheon vs its baseline for one case and metric."""

    case: str
    metric: str
    pantheon: str
    baseline: str = ""
    compare: str = ""
    goal: str = ""
    met: bool | None = None


@dataclass(slots=True)
class BenchResult:
    """A benchmark's rows, raw numbers and notes; ``met`` is None when it has no goal."""

    key: str
    title: str
    baseline: str
    rows: list[Row] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    skipped: str | None = None

    @property
    def met(self) -> bool | None:
        verdicts = [r.met for r in self.rows if r.met is not None]
        return all(verdicts) if verdicts else None


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def fmt(value: float, digits: int = 2) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"
